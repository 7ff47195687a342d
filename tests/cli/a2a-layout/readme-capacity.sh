# The README's receive capacity table is what its committed command
# prints (tests/bench/capacity.sh table, deterministic).
bin=$(dirname "$(command -v a2a-layout)")
(cd "$ROOT" && MOEKIT_BIN=$bin sh tests/bench/capacity.sh table) > got.md
awk '/^\| library `knob` \| Mixtral/ { on = 1 } on && !/^\|/ { exit } on' \
    "$ROOT/README.md" > want.md
[ -s want.md ] || die "no capacity table in the README"
cmp want.md got.md && echo "the README's table: $(($(wc -l < got.md) - 2)) rows, as printed"
rm got.md want.md
