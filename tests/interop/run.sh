#!/bin/sh
# run.sh - numpy interop: what np.save / np.savetxt write, moekit reads; what
# moekit writes, np.load / np.loadtxt read.  Needs Debian's python3-numpy
# and python3-yaml (installed by make deps); it is a failure, not a skip,
# if they are missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "${MOEKIT_BIN:-$here/../../build/bin}" && pwd)
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import numpy, yaml' 2>/dev/null; then
	echo "interop: $py cannot import numpy and yaml (run make deps)" >&2
	exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/moekit-interop.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
MOEKIT_BIN=$bin "$py" "$here/numpy_interop.py"
MOEKIT_BIN=$bin "$py" "$here/a2a_check.py"
MOEKIT_BIN=$bin "$py" "$here/a2a_capacity_check.py"
MOEKIT_BIN=$bin "$py" "$here/mdecode_check.py"
MOEKIT_BIN=$bin "$py" "$here/eplb_check.py"
MOEKIT_BIN=$bin "$py" "$here/eplb_replay_check.py"
MOEKIT_BIN=$bin "$py" "$here/eplb_engine_check.py"
MOEKIT_BIN=$bin "$py" "$here/eplb_xfer_check.py"
MOEKIT_BIN=$bin "$py" "$here/eplb_lost_check.py"
MOEKIT_BIN=$bin "$py" "$here/engine_files_check.py"
MOEKIT_BIN=$bin "$py" "$here/npz_check.py"
MOEKIT_BIN=$bin "$py" "$here/jsonl_check.py"
