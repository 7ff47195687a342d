# An .npz's members are placed by name, whatever their order; names
# mdecode cannot place are refused.
cp "$TESTDATA/mdecode-example.npy" ex.npy
mdecode --valid-length 7 ex.npy > ref.npy
echo "-- in order, and as numpy's savez(q=, v=, k=, mask=) writes them"
tensor-cat -f npz --names q,k,v,mask ex.npy > a.npz
tensor-cat -f npz --emit 0,2,1,3 --names q,v,k,mask ex.npy > b.npz
mdecode --valid-length 7 a.npz | cmp - ref.npy && echo same
mdecode --valid-length 7 b.npz | cmp - ref.npy && echo same
echo "-- torch's names"
tensor-cat -f npz --emit 3,2,1,0 --names mask,value_cache,key_cache,query ex.npy > c.npz
mdecode --valid-length 7 c.npz | cmp - ref.npy && echo same
echo "-- refused"
tensor-cat -f npz --names q,k,v,attn_mask ex.npy > d.npz
fails 1 mdecode d.npz
tensor-cat -f npz --emit 0,1,2,1 --names q,k,v,key ex.npy > e.npz
fails 1 mdecode e.npz
tensor-cat -f npz --emit 0,1,3 --names q,k,mask ex.npy > f.npz
fails 1 mdecode f.npz
tensor-cat -f npz --names a,b,c,d ex.npy > g.npz
fails 1 mdecode g.npz
rm -f *.npy *.npz
only_files
