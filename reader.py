import sys, numpy as np
class Pipe:                        # read() alone: np.lib.format then never seeks
    def __init__(self, f): self.f = f
    def read(self, n): return self.f.read(n)
def tensors(f):                    # every array of a moekit stream, pipe or file
    while f.peek(1):
        yield np.lib.format.read_array(Pipe(f))
for a in tensors(sys.stdin.buffer):
    print(a.dtype, a.shape, a.sum())
