# --help on stdout, exit 0; the usage line on a usage error.
eplb-replay --help
