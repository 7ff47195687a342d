# Every tool: --help, --version and --isa-list into a full disk or a
# closed stdout fail with one line and status 1 (a closed pipe quietly);
# an empty option value names the option; a value of 100 kB is cut in
# the error line, never echoed whole.
big=$(head -c 100000 /dev/zero | tr '\000' 9)
exec 3>&1
# one_line STATUS CMD...: CMD (its stdout already redirected) exits with
# STATUS and one line on stderr, printed here
one_line() {
	_want=$1
	shift
	"$@" 2> err
	_rc=$?
	[ $_rc = "$_want" ] || die "$* exited $_rc, want $_want"
	[ "$(wc -l < err)" = 1 ] || die "$*: $(wc -l < err) lines on stderr"
	cat err >&3
}
for t in tensor-cat eplb-plan eplb-replay a2a-layout mdecode; do
	one_line 1 $t --help > /dev/full
	one_line 1 $t --version >&-
	one_line 1 $t --isa-list > /dev/full
	$t --help 2> err | head -c 5 > /dev/null
	[ -s err ] && die "$t: a closed pipe is not quiet: $(cat err)"
done
fails 2 eplb-plan --expert-bytes "" -G 2 x.csv
fails 2 eplb-replay --window "" -G 2 x.csv
fails 2 a2a-layout --hidden "" x.npy
fails 2 mdecode --bsz ""
fails 2 tensor-cat --names "" x.npy
for a in "a2a-layout --dtype" "mdecode --kv-layout" "tensor-cat --dtype" "mdecode --scale" "eplb-plan -a"; do
	$a "$big" x.npy 2> err && die "$a accepted"
	[ "$(wc -c < err)" -lt 300 ] || die "$a: $(wc -c < err) bytes on stderr"
	[ "$(wc -l < err)" = 1 ] || die "$a: $(wc -l < err) lines"
done
rm err
echo cut
