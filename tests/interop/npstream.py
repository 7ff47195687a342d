"""The tensors of an NPY stream (moekit's output) as a list of numpy
arrays; shared by the interop checks."""
import io

import numpy as np


def arrays(blob):
    f = io.BytesIO(blob)
    out = []
    while f.tell() < len(blob):
        out.append(np.load(f))
    return out
