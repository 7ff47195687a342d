# Named tensors: .npz in (np.savez's archive, here written by tensor-cat
# itself; the interop test reads numpy's own), names kept; -o FILE.npz
# picks the format; --emit by name; a second tensor of a name refused;
# a torch .pt is named as such.
tensor-cat --names weights,cube --emit 0,6 -o two.npz "$TESTDATA/tensor-cat-mixed.npy"
tensor-cat --info two.npz
tensor-cat -f csv --emit cube two.npz
cat two.npz | tensor-cat --info
tensor-cat -o back.npy two.npz
tensor-cat --info back.npy
eplb-plan -r 16 -G 8 -n 2 -g 4 -o plan.npz "$TESTDATA/eplb-readme.npy"
tensor-cat --info plan.npz
tensor-cat -o plan.csv plan.npz
head -1 plan.csv
fails 1 tensor-cat -o dup.npz two.npz two.npz
only_files back.npy plan.csv plan.npz two.npz
cp "$TESTDATA/pt/stat.pt" stat.pt
fails 1 tensor-cat stat.pt
# a cut archive, and --quiet (accepted, nothing to silence)
head -c 200 two.npz > cut.npz
fails 1 tensor-cat cut.npz
tensor-cat --quiet --info two.npz
rm cut.npz
# a member's name with a NUL byte (libzip shows it as a space): refused;
# a real space is a name like any other
printf '1,2,3\n' | tensor-cat --names aXb -f npz > x.npz
sed 's/aXb\.npy/a\x00b.npy/g' x.npz > nul.npz
fails 1 tensor-cat --info nul.npz
printf '1,2,3\n' | tensor-cat --names 'a b' -f npz > sp.npz
tensor-cat --info sp.npz
rm x.npz nul.npz sp.npz
