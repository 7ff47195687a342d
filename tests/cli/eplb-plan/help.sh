# --help on stdout, status 0; the synopsis names every option.
eplb-plan --help | head -1
eplb-plan -h | grep -c -- '--prev'
