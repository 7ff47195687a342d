#!/usr/bin/python3
"""Fixtures for eplb-plan's reader of SGLang's torch .pt load dumps.

SGLang's expert-distribution recorder (stat mode) writes
torch.save(dict(rank=..., logical_count=<int [T, L, E]>,
average_utilization_rate_over_window=<float or None>), path).  This writes,
with Debian's python3-torch (torch.save itself, then zip surgery for what
this torch does not write), into testdata/pt/:

  good, each beside the same loads as NPY (NAME.npy) to compare against:
    stat.pt          int32 [6, 4, 8], layer 0 all zero (a dense layer),
                     utilisation 0.71 (torch's default pickle, protocol 2)
    stat-p4.pt       the same loads as int64, utilisation None, pickle
                     protocol 4 (FRAME, SHORT_BINUNICODE, MEMOIZE,
                     STACK_GLOBAL), and what torch 2.x adds to the archive
                     (byteorder "little", .format_version,
                     .storage_alignment, .data/serialization_id)
    stat-big.pt      the same loads, byteorder "big", storage byte-swapped
    stat-offset.pt   logical_count a contiguous view at an offset into a
                     larger storage (what slicing a buffer saves)
    dsv3.pt          testdata/eplb-dsv3-prefill_in1024.json's [61, 256]
                     counts as int32 [1, 61, 256] (compare with the JSON)
  bad (each must be one clear line, exit 1):
    legacy.pt        torch.save(..., _use_new_zipfile_serialization=False)
                     (its storage keys are object ids: it differs per run):
                     not a zip
    truncated.pt     stat.pt cut in half
    no-pkl.pt        a zip without data.pkl
    no-storage.pt    data/0 removed
    short-storage.pt data/0 shorter than the tensor
    wrap-numel.pt    a storage whose numel x 4 bytes wraps to what data/0
                     holds, half the tensor
    opcode.pt        data.pkl with an opcode torch.save does not write (INST)
    global.pt        data.pkl naming os.system instead of a storage type
    strided.pt       logical_count a transposed (non-contiguous) view
    no-count.pt      a dict without logical_count
    byteorder.pt     byteorder "middle"
    complex.pt       logical_count a complex64 tensor

and the fuzz corpora: testdata/corpus/pt/*.bin (each fixture's pickle and
storages in tests/fuzz/fuzz_pt.c's form) and testdata/corpus/loads/ (small
load files of every form eplb-plan reads).

  /usr/bin/python3 tests/gen/eplb_pt.py

Random seed 20261122; rerunning rewrites the same files.
"""
import io
import json
import os
import pickle
import zipfile

import numpy as np
import torch

OUT = "testdata/pt"
rng = np.random.default_rng(20261122)


def save(obj, **kw):
    """torch.save into bytes."""
    b = io.BytesIO()
    torch.save(obj, b, **kw)
    return b.getvalue()


def entries(blob):
    """The archive's (name, bytes) in order."""
    z = zipfile.ZipFile(io.BytesIO(blob))
    return [(i.filename, z.read(i.filename)) for i in z.infolist()]


def zipped(items):
    """A stored (uncompressed) zip of (name, bytes), as torch writes."""
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        for name, data in items:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
    return b.getvalue()


def edit(blob, fn):
    """The archive with fn(name, data) -> data or None (dropped)."""
    out = []
    for name, data in entries(blob):
        data = fn(name, data)
        if data is not None:
            out.append((name, data))
    return zipped(out)


def dump(counts, util=0.71):
    return dict(rank=0, logical_count=counts,
                average_utilization_rate_over_window=util)


def write(name, blob):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(blob)


def fuzz_pt_form(blob):
    """tests/fuzz/fuzz_pt.c's input: flags, then u16-prefixed pieces."""
    ents = dict(entries(blob))
    pre = next(n for n in ents if n.endswith("/data.pkl"))[:-9]
    order = ents.get(pre + "/byteorder")
    out = bytes([1 if order == b"big" else 2 if order == b"little" else 0])
    pieces = [ents[pre + "/data.pkl"]]
    k = 0
    while pre + "/data/%d" % k in ents:
        pieces.append(ents[pre + "/data/%d" % k])
        k += 1
    for p in pieces:
        p = p[:65535]
        out += len(p).to_bytes(2, "little") + p
    return out


def corpus(fixtures):
    os.makedirs("testdata/corpus/pt", exist_ok=True)
    os.makedirs("testdata/corpus/loads", exist_ok=True)
    for name in fixtures:
        with open(os.path.join(OUT, name), "rb") as f:
            blob = f.read()
        try:
            form = fuzz_pt_form(blob)
        except (zipfile.BadZipFile, StopIteration):
            continue
        with open("testdata/corpus/pt/%s.bin" % name[:-3], "wb") as f:
            f.write(form)
    c = rng.integers(0, 50, size=(3, 2, 4))
    small = {
        "sglang.json": json.dumps({"logical_count": c[0].tolist()}),
        "sglang-steps.json": json.dumps({"logical_count": c.tolist()}),
        "adrs.json": json.dumps({"load_history": [
            {"logical_expert_load": m.tolist()} for m in c]}),
        "long.csv": "step,layer,expert,load\n" + "".join(
            "%d,%d,%d,%d\n" % (t, i, x, c[t, i, x]) for t in range(3)
            for i in range(2) for x in range(4)),
        "wide.csv": "".join(",".join(map(str, r)) + "\n" for r in c[1]),
    }
    for name, text in small.items():
        with open("testdata/corpus/loads/" + name, "w") as f:
            f.write(text)
    with open(os.path.join(OUT, "stat.pt"), "rb") as f:
        blob = f.read()
    with open("testdata/corpus/loads/stat.pt", "wb") as f:
        f.write(blob)


def main():
    os.makedirs(OUT, exist_ok=True)
    c = rng.integers(0, 1000, size=(6, 4, 8)).astype(np.int32)
    c[:, 0, :] = 0
    t32 = torch.from_numpy(c)
    np.save(os.path.join(OUT, "stat.npy"), c)
    base = save(dump(t32))
    write("stat.pt", base)

    # protocol 4 and the entries torch 2.x adds
    p4 = save(dump(t32.long(), None), pickle_protocol=4)
    pre = entries(p4)[0][0].split("/")[0]
    extra = [(pre + "/byteorder", b"little"),
             (pre + "/.format_version", b"1"),
             (pre + "/.storage_alignment", b"64"),
             (pre + "/.data/serialization_id", b"0123456789")]
    write("stat-p4.pt", zipped(entries(p4) + extra))

    # big-endian storages
    def swap(name, data):
        if name.endswith("/data/0"):
            return np.frombuffer(data, "<i4").astype(">i4").tobytes()
        return data
    write("stat-big.pt", zipped(entries(edit(base, swap)) +
                                [(pre + "/byteorder", b"big")]))

    # a view at an offset into a larger storage
    big = torch.zeros(7 * 4 * 8, dtype=torch.int32)
    big[32:].copy_(t32.reshape(-1))
    write("stat-offset.pt", save(dump(big[32:].view(6, 4, 8))))

    # the real dump, as SGLang would have written it
    with open("testdata/eplb-dsv3-prefill_in1024.json") as f:
        real = np.array(json.load(f)["logical_count"], dtype=np.int64)
    write("dsv3.pt", save(dump(torch.from_numpy(
        real.astype(np.int32)).unsqueeze(0))))

    # bad ones
    write("legacy.pt", save(dump(t32), _use_new_zipfile_serialization=False))
    write("truncated.pt", base[:len(base) // 2])
    write("no-pkl.pt", edit(base, lambda n, d: None if n.endswith(
        "data.pkl") else d))
    write("no-storage.pt", edit(base, lambda n, d: None if n.endswith(
        "/data/0") else d))
    write("short-storage.pt", edit(base, lambda n, d: d[:len(d) - 4] if
          n.endswith("/data/0") else d))

    def pkl(fn):
        return edit(base, lambda n, d: fn(d) if n.endswith("data.pkl")
                    else d)
    # INST (opcode 'i') in place of the first GLOBAL ('c'): same operands
    write("opcode.pt", pkl(lambda d: d.replace(
        b"ctorch._utils\n_rebuild_tensor_v2\n",
        b"itorch._utils\n_rebuild_tensor_v2\n", 1)))
    # numel 2^62 + 96 of an IntStorage: its bytes wrap to 384, which
    # data/0 cut to 384 holds, while the tensor reads 768
    write("wrap-numel.pt", edit(base, lambda n, d: d.replace(
        b"cpuq\x07K\xc0t", b"cpuq\x07\x8a\x08" + ((1 << 62) + 96).to_bytes(
            8, "little") + b"t", 1) if n.endswith("data.pkl") else d[:384]
        if n.endswith("/data/0") else d))
    write("global.pt", pkl(lambda d: d.replace(
        b"ctorch\nIntStorage\n", b"cos\nsystem\n", 1)))
    write("strided.pt", save(dump(t32.transpose(1, 2))))
    write("no-count.pt", save(dict(rank=0, counts=t32)))
    write("byteorder.pt", zipped(entries(base) +
                                 [(pre + "/byteorder", b"middle")]))
    write("complex.pt", save(dump(torch.ones(2, 2, 4,
                                             dtype=torch.complex64))))
    corpus(sorted(n for n in os.listdir(OUT) if n.endswith(".pt") and
                  n != "dsv3.pt"))
    # sanity: torch reads back what the good ones hold
    for name in ("stat.pt", "stat-offset.pt"):
        got = torch.load(os.path.join(OUT, name))["logical_count"]
        assert (got.numpy() == c).all(), name
    assert pickle.PROTO == b"\x80"


if __name__ == "__main__":
    main()
