#!/bin/sh
# planted.sh - check.sh must catch what it is there to catch: a copy of
# lib/ with planted upward includes (a kernel row naming a wing's kernels,
# a wing's core writing through cli/), a bare include and a private header
# used from another folder fails, naming each file and line.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
d=$(mktemp -d "${TMPDIR:-/tmp}/layers.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
cp -R "$root/lib" "$d/lib"
printf '#include "cli/io.h"\n#include "npy.h"\n' >> "$d/lib/tensor/npy.c"
printf '#include "tensor/src_impl.h"\n' >> "$d/lib/a2a/a2a_job.c"
printf '#include "mdec/mdec.h"\n' >> "$d/lib/simd/kern_avx2.c"
printf '#include "cli/io.h"\n#include "eplb/eplb_run.h"\n' >> "$d/lib/eplb/eplb_replay.c"
n=$(wc -l < "$d/lib/tensor/npy.c")
sh "$here/check.sh" "$d" > "$d/out" && { echo "planted: not caught"; exit 1; }
want="lib/a2a/a2a_job.c:$(wc -l < "$d/lib/a2a/a2a_job.c"): includes \"tensor/src_impl.h\": private to lib/tensor/
lib/eplb/eplb_replay.c:$(($(wc -l < "$d/lib/eplb/eplb_replay.c") - 1)): includes \"cli/io.h\": lib/eplb/ may include only base simd tensor moe
lib/eplb/eplb_replay.c:$(wc -l < "$d/lib/eplb/eplb_replay.c"): includes \"eplb/eplb_run.h\": the story's header; only lib/eplb/*_run.[ch] and cmd/ include it
lib/simd/kern_avx2.c:$(wc -l < "$d/lib/simd/kern_avx2.c"): includes \"mdec/mdec.h\": lib/simd/ may include only base
lib/tensor/npy.c:$((n - 1)): includes \"cli/io.h\": lib/tensor/ may include only base simd
lib/tensor/npy.c:$n: includes \"npy.h\": name its folder (\"dir/npy.h\")"
if [ "$(cat "$d/out")" != "$want" ]; then
	echo "planted: check.sh said:"
	cat "$d/out"
	exit 1
fi
echo "layers: lib/ keeps its include rule; 6 planted violations caught"
