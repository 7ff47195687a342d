#!/bin/sh
# run.sh - the CLI test runner (zstd's cli-tests convention).
#
# Every tests/cli/<tool>/<name>.sh runs in a fresh temporary directory with
# LC_ALL=C, the binaries of $MOEKIT_BIN first on PATH, $TESTDATA pointing at
# testdata/ and tests/cli/lib.sh sourced.  Beside it, <name>.sh.stdout,
# .stderr and .exit hold what it must print and return; a missing file means
# empty output and status 0.  Run with test names (tool/name) to run a few.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(cd "${MOEKIT_BIN:-$root/build/bin}" && pwd) || exit 2
export TESTDATA="$root/testdata" ROOT="$root" LC_ALL=C
export PATH="$bin:$PATH"
pass=0 fail=0 failed=

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
		if [ -f "$t.$s" ]; then
			exp="$t.$s"
		else
			exp=/dev/null
		fi
		if ! cmp -s "$exp" "$dir/$f"; then
			echo "FAIL $name: $s differs (- expected, + got):"
			diff -u "$exp" "$dir/$f" | sed -n '3,40p'
			if ! LC_ALL=C grep -q '^[[:print:][:space:]]*$' "$dir/$f" 2>/dev/null; then
				od -c "$dir/$f" | head -5
			fi
			ok=0
		fi
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
