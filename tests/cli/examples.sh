#!/bin/sh
# examples.sh - run every example of the man pages (jq's mantest idea).
#
# In each .Bd -literal block of EXAMPLES, a line "$ command" is run with
# bash -o pipefail in a scratch directory where testdata/ is the
# repository's (files the examples write stay there), the moekit binaries
# first on PATH; the lines after it, up to the next "$ " or .Ed, are its
# expected standard output (none: the output is not compared, but the
# status must be 0).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "${MOEKIT_BIN:-$root/build/bin}" && pwd) || exit 2
export PATH="$bin:$PATH" LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/moekit-ex.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/work"
ln -s "$root/testdata" "$tmp/work/testdata"
n=0 bad=0

# Turn the pages into a script of records: C<tab>command / O<tab>line.
for page in "$@"; do
	awk -v page="$page" '
	function unesc(s) {
		gsub(/\\\(dq/, "\"", s); gsub(/\\&/, "", s); gsub(/\\e/, "\\", s)
		return s
	}
	/^\.Sh / { ex = ($2 == "EXAMPLES") }
	ex && /^\.Bd -literal/ { lit = 1; next }
	lit && /^\.Ed/ { lit = 0; print "E\t" page; next }
	lit && /^\$ / { print "C\t" page "\t" unesc(substr($0, 3)); next }
	lit { print "O\t" page "\t" unesc($0) }
	' "$(case $page in /*) echo "$page" ;; *) echo "$root/$page" ;; esac)"
done > "$tmp/records"

run_one() {
	[ -n "$cmd" ] || return 0
	n=$((n + 1))
	(cd "$tmp/work" && bash -o pipefail -c "$cmd") > "$tmp/got" 2> "$tmp/err"
	rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL $cpage: '$cmd' exited $rc: $(head -3 "$tmp/err")"
		bad=$((bad + 1))
	elif [ -s "$tmp/want" ] && ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "FAIL $cpage: '$cmd' printed something else:"
		diff -u "$tmp/want" "$tmp/got" | sed -n '3,20p'
		bad=$((bad + 1))
	fi
	cmd=
}

cmd= cpage=
: > "$tmp/want"
while IFS="$(printf '\t')" read -r kind page text; do
	case $kind in
	C)	run_one; cmd=$text; cpage=$page; : > "$tmp/want" ;;
	O)	[ -n "$cmd" ] && printf '%s\n' "$text" >> "$tmp/want" ;;
	E)	run_one ;;
	esac
done < "$tmp/records"
echo "examples: $n run, $bad failed"
[ $bad = 0 ] && [ $n -gt 0 ]
