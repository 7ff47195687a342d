#!/bin/sh
# check.sh [ROOT] - the include rule of lib/'s layer folders (README,
# "Layout"): a folder includes only the folders below it.  Every include
# of a moekit header names its folder ("tensor/npy.h"); a header ending
# in _impl.h or _kernel.h is private to its folder.  Prints each offence
# as FILE:LINE: message and exits 1 if there is one.
set -u
root=${1:-.}
cd "$root" || exit 2

# the folders a file of folder $1 may include besides its own; a wing's
# story, lib/<wing>/<tool>_run.c and its _run.h ($2), also writes
# through cli/
allowed() {
	case $1 in
	base)	echo "" ;;
	simd)	echo "base" ;;
	tensor)	echo "base simd" ;;
	cli|moe)	echo "base simd tensor" ;;
	eplb|a2a)
		case $2 in
		*_run.[ch])	echo "base simd tensor moe cli" ;;
		*)	echo "base simd tensor moe" ;;
		esac ;;
	mdec)
		case $2 in
		*_run.[ch])	echo "base simd tensor cli" ;;
		*)	echo "base simd tensor" ;;
		esac ;;
	*)	echo "?" ;;
	esac
}

bad=0
out=$(mktemp "${TMPDIR:-/tmp}/layers.XXXXXX") || exit 2
for f in lib/*/*.c lib/*/*.h; do
	dir=${f#lib/}
	dir=${dir%%/*}
	ok=$(allowed "$dir" "$f")
	if [ "$ok" = "?" ]; then
		echo "$f:1: folder lib/$dir/ is not a layer (base simd tensor moe cli eplb a2a mdec)"
		bad=1
		continue
	fi
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
	while IFS= read -r line; do
		n=${line%%:*}
		inc=$(echo "$line" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
		case $inc in
		*/*)	to=${inc%%/*} ;;
		*)	echo "$f:$n: includes \"$inc\": name its folder (\"dir/$inc\")"
			continue ;;
		esac
		case $inc in
		*_impl.h|*_kernel.h)
			[ "$to" = "$dir" ] ||
			    echo "$f:$n: includes \"$inc\": private to lib/$to/"
			continue ;;
		esac
		# a wing's core never reaches cli/ through its story's header
		case $inc:$f in
		*_run.h:*_run.[ch])	;;
		*_run.h:*)	echo "$f:$n: includes \"$inc\": the story's header; only lib/$dir/*_run.[ch] and cmd/ include it"
			continue ;;
		esac
		[ "$to" = "$dir" ] && continue
		case " $ok " in *" $to "*) continue ;; esac
		echo "$f:$n: includes \"$inc\": lib/$dir/ may include only ${ok:-its own folder}"
	done
done > "$out"
[ -s "$out" ] && bad=1
cat "$out"
rm -f "$out"
exit $bad
