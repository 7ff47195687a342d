# --help goes to stdout with status 0; -h is the same; -V names the version.
tensor-cat --help > h1 || die "--help failed"
tensor-cat -h > h2 || die "-h failed"
cmp -s h1 h2 || die "-h and --help differ"
head -1 h1
grep -c -- '--emit' h1
tensor-cat -V | head -1
