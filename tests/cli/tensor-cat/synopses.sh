# Every tool's Usage lines name every option its --help describes (by its
# short or long name, or in a bundle of flags such as [-hVv]), and so does
# its man page's SYNOPSIS: a synopsis cannot silently omit one (--quiet
# was).
# named SHORT LONG FILE: whether FILE names the option
named() {
	{ [ -n "$1" ] && grep -q -e "$1[] |]" -e "\[-[A-Za-z]*${1#-}[A-Za-z]*\]" "$3"; } ||
	    grep -q -- "$2\([]= |]\|$\)" "$3"
}
for t in tensor-cat eplb-plan eplb-replay a2a-layout mdecode; do
	$t --help > help
	sed -n '/^Usage:/,/^[^ U]/p' help | sed '$d' > usage
	mandoc -Tutf8 "$ROOT/man/$t.1" 2>/dev/null | col -b |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' > synopsis
	sed -n 's/^  \(-[A-Za-z]\)\{0,1\}\(, \)\{0,1\}\(--[a-z0-9-]*\).*/\1 \3/p' help |
	while read -r a b; do
		[ -z "$b" ] && { b=$a; a=; }
		case $b in --help|--version) continue ;; esac
		named "$a" "$b" usage || echo "$t: $b missing from the Usage line"
		named "$a" "$b" synopsis || echo "$t: $b missing from SYNOPSIS"
	done
done
rm -f help usage synopsis
echo checked
