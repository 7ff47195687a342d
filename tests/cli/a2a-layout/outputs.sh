# The outputs of a run are committed together: a report on stdout beside
# a -o that fails prints nothing; a pipe closed early
# leaves no file.
m=$TESTDATA/a2a-mixtral-gsm8k.npy
fails 1 a2a-layout -E 8 --report -o /dev/full "$m"
fails 1 sh -c 'a2a-layout -E 8 --report -f csv -o t.csv "$1" > /dev/full' sh "$m"
# (the reader is gone before the report is written: SIGPIPE)
(sleep 0.3; a2a-layout -E 8 --report -o out.npy "$m") | true
only_files
