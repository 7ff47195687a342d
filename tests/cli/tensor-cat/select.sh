# --emit by index and by name, in the order given; --names names outputs.
set -e
m=$TESTDATA/tensor-cat-mixed.npy
tensor-cat --emit 6,1 --names cube,big -f csv "$m"
tensor-cat --emit 6,1 --names cube,big -f csv "$m" | tensor-cat --emit big --info
tensor-cat --emit 4,4 "$m" "$m" | tensor-cat --info
tensor-cat "$m" "$m" | tensor-cat --emit 29 --info
# one tensor selected twice is named twice
tensor-cat --emit 4,4 --names a,b --info "$m"
