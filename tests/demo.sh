#!/bin/sh
# demo.sh - what `make demo` runs: real pipelines over the shipped testdata.
set -eu
bin=$(cd "${MOEKIT_BIN:-build/bin}" && pwd)
export PATH="$bin:$PATH" LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

step() { printf '\n$ %s\n' "$*"; }

echo "== tensor-cat: tensor streams, NPY <-> CSV"
step "tensor-cat --info testdata/tensor-cat-mixed.npy"
tensor-cat --info testdata/tensor-cat-mixed.npy
step "tensor-cat -f csv --emit 0,6 --names weights,cube testdata/tensor-cat-mixed.npy"
tensor-cat -f csv --emit 0,6 --names weights,cube testdata/tensor-cat-mixed.npy
step "tensor-cat -f csv testdata/tensor-cat-mixed.npy | tensor-cat -f npy | cmp - testdata/tensor-cat-roundtrip.npy"
tensor-cat -f csv testdata/tensor-cat-mixed.npy | tensor-cat -f npy |
    cmp - testdata/tensor-cat-roundtrip.npy && echo "round trip: identical"
step "tensor-cat --dtype f16 --emit 0 testdata/tensor-cat-mixed.npy | tensor-cat -f csv"
tensor-cat --dtype f16 --emit 0 testdata/tensor-cat-mixed.npy | tensor-cat -f csv
