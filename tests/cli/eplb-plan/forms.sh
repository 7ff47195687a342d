# Every input form: [E], [L,E], [T,L,E] with --window, the long CSV form
# (with and without steps), vLLM's load_history; the window sums steps.
set -e
plan() { eplb-plan -a deepseek -r 6 -G 3 --emit logcnt -f csv "$@" | tail -n +2; }
printf '5\n1\n9\n2\n' > e.csv
plan e.csv
printf '# name=log shape=3,1,4 dtype=i64\n100,1,1,1\n5,1,9,2\n0,0,0,0\n' > tle.csv
plan --window 2 tle.csv
printf 'layer,expert,load\n0,0,5\n0,1,1\n0,2,4\n0,3,2\n0,2,5\n' > long.csv
plan long.csv
printf 'step,layer,expert,load\n1,0,0,100\n2,0,0,5\n2,0,1,1\n3,0,2,9\n3,0,3,2\n' > steps.csv
plan --window 2 steps.csv
printf '{"load_history": [{"logical_expert_load": [[100, 1, 1, 1]]}, {"logical_expert_load": [[5, 1, 9, 2]]}]}' > h.json
plan --window 1 h.json
# a window longer than the log: all of it; windows as scenarios past the
# log's start: a usage error (the options ask what the log cannot give)
plan --window 9 tle.csv
plan --window 3 tle.csv
fails 2 eplb-plan -r 6 -G 3 --window 2 --history 2 tle.csv
