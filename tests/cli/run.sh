#!/bin/sh
# run.sh - the CLI test runner (zstd's cli-tests convention).
#
# Every tests/cli/<tool>/<name>.sh runs in a fresh temporary directory with
# LC_ALL=C, the binaries of $MOEKIT_BIN first on PATH, $TESTDATA pointing at
# testdata/ and tests/cli/lib.sh sourced.  Beside it, <name>.sh.stdout,
# .stderr and .exit hold what it must print and return; a missing file means
# empty output and status 0.  Where output varies (times, the CPU), the
# expectation is <name>.sh.stdout.glob or .stderr.glob instead: in each
# line `*` matches any characters, and a line `...` any number of lines.
# Run with test names (tool/name) to run a few.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "${MOEKIT_BIN:-$root/build/bin}" && pwd) || exit 2
export TESTDATA="$root/testdata" ROOT="$root" LC_ALL=C
export PATH="$bin:$PATH"
pass=0 fail=0 failed=

# glob_match PATTERNS FILE: whether FILE's lines match PATTERNS' lines.
glob_match() {
	awk -v pf="$1" '
	# whether s matches glob p, whose only wildcard is *
	function gm(s, p,    n, part, i, k, t) {
		n = split(p, part, "*")
		if (n <= 1)
			return s == p
		if (substr(s, 1, length(part[1])) != part[1])
			return 0
		s = substr(s, length(part[1]) + 1)
		for (i = 2; i < n; i++) {
			if ((k = index(s, part[i])) == 0)
				return 0
			s = substr(s, k + length(part[i]))
		}
		t = part[n]
		return length(s) >= length(t) &&
		    substr(s, length(s) - length(t) + 1) == t
	}
	# whether lines j.. match patterns i..
	function m(i, j,    k) {
		if (i == np)
			return j == ng
		if (pat[i] == "...") {
			for (k = j; k <= ng; k++)
				if (m(i + 1, k))
					return 1
			return 0
		}
		return j < ng && gm(got[j], pat[i]) && m(i + 1, j + 1)
	}
	BEGIN { while ((getline l < pf) > 0) pat[np++] = l }
	{ got[ng++] = $0 }
	END { exit !m(0, 0) }' "$2"
}

if [ $# -gt 0 ]; then
	tests=$(for t in "$@"; do echo "$here/$t.sh"; done)
else
	tests=$(ls "$here"/*/*.sh | sort)
fi

for t in $tests; do
	name=${t#"$here"/}
	name=${name%.sh}
	dir=$(mktemp -d "${TMPDIR:-/tmp}/moekit-cli.XXXXXX")
	mkdir "$dir/work"
	(cd "$dir/work" && . "$here/lib.sh" && . "$t") >"$dir/.out" 2>"$dir/.err" </dev/null
	rc=$?
	ok=1
	want=0
	[ -f "$t.exit" ] && want=$(cat "$t.exit")
	if [ "$rc" != "$want" ]; then
		echo "FAIL $name: exit status $rc, want $want"
		ok=0
	fi
	for s in stdout stderr; do
		f=.out
		[ $s = stderr ] && f=.err
		if [ -f "$t.$s.glob" ]; then
			[ -f "$t.$s" ] && echo "FAIL $name: both $s and $s.glob"
			exp="$t.$s.glob"
			glob_match "$exp" "$dir/$f" && [ ! -f "$t.$s" ] &&
			    continue
		else
			exp="$t.$s"
			[ -f "$exp" ] || exp=/dev/null
			cmp -s "$exp" "$dir/$f" && continue
		fi
		{
			echo "FAIL $name: $s differs (- expected, + got):"
			diff -u "$exp" "$dir/$f" | sed -n '3,40p'
			if ! LC_ALL=C grep -q '^[[:print:][:space:]]*$' "$dir/$f" 2>/dev/null; then
				od -c "$dir/$f" | head -5
			fi
			ok=0
		}
	done
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $name"
	fi
	rm -rf "$dir"
done
echo "cli: $pass passed, $fail failed${failed:+ (}${failed# }${failed:+)}"
[ $fail = 0 ]
