# A bf16 model with vLLM's FP8 cache: q's bf16 bits travel as u16 (NumPy
# has no bf16), k and v as the cache's bytes.  Beside an FP8 cache a u16 q
# can only be bf16: it is read so (a note says it), and out comes back
# bf16; the same as q's values in f32.
set -e
# q [1, 2, 1, 4]: 1, 0.5, -1, 2 and 2, -1, 0.5, 1 as bf16 bits and as f32
printf '# name=q shape=1,2,1,4 dtype=u16\n16256,16128,49024,16384\n16384,49024,16128,16256\n' | tensor-cat -f npy > qb.npy
printf '# name=q shape=1,2,1,4 dtype=f32\n1,0.5,-1,2\n2,-1,0.5,1\n' | tensor-cat -f npy > qf.npy
# k and v [1, 1, 3, 4], E4M3 bytes: 0x38 1, 0x40 2, 0x30 0.5, 0xb8 -1
printf '# name=k shape=1,1,3,4 dtype=u8\n56,64,48,184\n64,48,184,56\n48,184,56,64\n' | tensor-cat -f npy > k.npy
printf '# name=v shape=1,1,3,4 dtype=u8\n64,56,48,56\n184,64,56,48\n56,56,64,184\n' | tensor-cat -f npy > v.npy
printf '# name=mask shape=1,1,3 dtype=bool\n0,0,1\n' | tensor-cat -f npy > m.npy
fp8="--dtype fp8_e4m3 --k-scale 0.5 --v-scale 2 --valid-length 3"
mdecode -q qb.npy -k k.npy -v v.npy -m m.npy $fp8 -f csv
mdecode --quiet -q qf.npy -k k.npy -v v.npy -m m.npy $fp8 --out-dtype bf16 -f csv > f.csv
mdecode --quiet -q qb.npy -k k.npy -v v.npy -m m.npy $fp8 -f csv | cmp - f.csv &&
    echo "the same as q in f32"
# a u16 q beside an f16 cache is still refused: it could be either
printf '# name=k shape=1,1,3,4 dtype=f16\n1,2,0.5,-1\n2,0.5,-1,1\n0.5,-1,1,2\n' | tensor-cat -f npy > k16.npy
fails 1 mdecode -q qb.npy -k k16.npy -v k16.npy -m m.npy --valid-length 3
