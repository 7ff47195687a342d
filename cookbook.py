import subprocess, numpy as np
r = np.random.default_rng(0)
q = r.standard_normal((2, 32, 1, 128)).astype(np.float16)      # [B, QH, 1, D]
k, v = (r.standard_normal((2, 8, 512, 128)).astype(np.float16) for _ in "kv")
mask = r.random((2, 8, 512)) < 0.3                               # True: masked out
np.savez("attn.npz", q=q, k=k, v=v, mask=mask)  # taken by name; torch: t.numpy()
subprocess.run(["mdecode", "-o", "out.npz", "attn.npz"], check=True)
out = np.load("out.npz")["out"][:, :, 0].astype(np.float64)
g = 32 // 8                                                      # the float64 formula:
s = np.einsum("bhd,bhmd->bhm", q[:, :, 0].astype(np.float64),
              np.repeat(k, g, 1).astype(np.float64)) / np.sqrt(128)
s[np.repeat(mask, g, 1)] = -np.inf
p = np.exp(s - s.max(-1, keepdims=True)); p /= p.sum(-1, keepdims=True)
ref = np.einsum("bhm,bhmd->bhd", p, np.repeat(v, g, 1).astype(np.float64))
print(np.abs(out - ref).max())                                  # ~2e-4: f16 output
