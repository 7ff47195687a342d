# The outputs of a run are committed together: no report is left when
# the plan cannot be written, and nothing reaches stdout when the report
# cannot be opened, or when the reader of stdout is gone.
printf '90,132,40,61,104,165,39,4\n' > w.csv
fails 1 eplb-plan -r 8 -G 2 --report rep.csv -o /dev/full w.csv
fails 1 sh -c "eplb-plan -r 8 -G 2 --report rep.csv w.csv > /dev/full"
fails 1 eplb-plan -r 8 -G 2 --report nodir/rep.csv w.csv
(sleep 0.3; eplb-plan -r 8 -G 2 --report rep.csv -f csv w.csv) | true
only_files w.csv
eplb-plan -r 8 -G 2 --report rep.csv -o plan.csv w.csv
only_files plan.csv rep.csv w.csv
