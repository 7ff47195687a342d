# lib.sh - helpers sourced by every CLI test (POSIX sh).

die() {
	echo "FAILED: $*" >&2
	exit 1
}

# fails STATUS CMD...: CMD must exit with STATUS, print nothing on stdout
# and exactly one line on stderr, which is then printed on our stdout so
# the .stdout file records the message.
fails() {
	_want=$1
	shift
	_rc=0
	"$@" >.fails-out 2>.fails-err || _rc=$?
	[ "$_rc" = "$_want" ] || die "$* exited $_rc, want $_want: $(cat .fails-err)"
	[ -s .fails-out ] && die "$* wrote to stdout on failure"
	[ "$(wc -l < .fails-err)" = 1 ] ||
	    die "$* wrote $(wc -l < .fails-err) lines to stderr: $(cat .fails-err)"
	cat .fails-err
	rm -f .fails-out .fails-err
}

# no_files: the current directory holds nothing but what is listed.
only_files() {
	_got=$(ls -A | grep -v '^\.fails-' | sort | tr '\n' ' ')
	[ "$_got" = "$* " ] || [ "$_got" = "$*" ] ||
	    die "directory holds '$_got', want '$*'"
}

# render FILE.svg: draw it with a real renderer (librsvg's rsvg-convert)
# and print what came out: "FILE.svg: PNG WxH" (the width and height from
# the PNG's IHDR), or fail if it does not render.
render() {
	rsvg-convert -o "$1.png" "$1" 2>.render-err ||
	    die "rsvg-convert $1: $(cat .render-err)"
	rm -f .render-err
	[ "$(od -An -c -j1 -N3 "$1.png" | tr -d ' ')" = PNG ] ||
	    die "$1.png is not a PNG"
	_w=$(od -An -tu1 -j16 -N4 "$1.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	_h=$(od -An -tu1 -j20 -N4 "$1.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	echo "$1: PNG ${_w}x${_h}"
	rm -f "$1.png"
}

# a2a_trace R T K E: a CSV routing trace of R ranks of T tokens, top-K,
# ids spread over E experts (deterministic, no drops).
a2a_trace() {
	awk -v R=$1 -v T=$2 -v K=$3 -v E=$4 'BEGIN {
		printf "# name=ids shape=%d,%d,%d dtype=i32\n", R, T, K
		for (i = 0; i < R * T; i++) {
			line = ""
			for (j = 0; j < K; j++)
				line = line (j ? "," : "") (i * 7 + j * 13) % E
			print line
		} }'
}
