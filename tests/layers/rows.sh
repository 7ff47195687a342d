#!/bin/sh
# rows.sh - a kernel table that forgets a level's row must not compile
# (simd/kern.h, MK_KERN_ROWS): a table with every row compiles, the same
# table without its amx row does not, naming the row.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC:-cc}
d=$(mktemp -d "${TMPDIR:-/tmp}/rows.XXXXXX") || exit 2
trap 'rm -rf "$d"' EXIT
table() {
	cat <<'C'
#include "simd/kern.h"
#define T_KERNELS(X) X(f, int, (int))
struct t_kern { const char *name; T_KERNELS(MK_KERN_MEMBER) };
static int f_generic(int x) { return x; }
static const struct t_kern t_kern_generic = { .name = "generic", .f = f_generic };
static const struct t_kern t_kern_avx2 = MK_KERN_ROW_NONE("avx2");
static const struct t_kern t_kern_avx512 = MK_KERN_ROW_NONE("avx512");
static const struct t_kern t_kern_avx512bf16 = MK_KERN_ROW_NONE("avx512bf16");
C
	[ "$1" = all ] &&
	    echo 'static const struct t_kern t_kern_amx = MK_KERN_ROW_NONE("amx");'
	cat <<'C'
MK_KERN_ROWS(t_kern, struct t_kern);
const struct t_kern *t_kern_build(enum mk_isa isa, struct t_kern *out);
const struct t_kern *t_kern(void);
char *t_kern_describe(char *buf, size_t size);
MK_KERN_TABLE(t_kern, struct t_kern, T_KERNELS)
C
}
compile() {
	$cc -std=c11 -D_GNU_SOURCE -I"$root/lib" -fsyntax-only -x c "$1" \
	    2> "$1.err"
}
table all > "$d/all.c"
compile "$d/all.c" || { echo "rows: a full table does not compile:"; cat "$d/all.c.err"; exit 1; }
table short > "$d/short.c"
if compile "$d/short.c"; then
	echo "rows: a table without its amx row compiled"
	exit 1
fi
grep -q "t_kern_amx" "$d/short.c.err" ||
    { echo "rows: the error does not name the row:"; cat "$d/short.c.err"; exit 1; }
echo "rows: a kernel table without a level's row does not compile"
