# What the shell benchmarks share (sourced: benches/journal.sh,
# benches/namespaces.sh). A script defines `table LABEL`, which prints its
# rows for one round, and kills "$load_pids" in its EXIT trap.

# Nanoseconds since the epoch.
now() { date +%s%N; }

# idle_then_loaded MACHINE HEADER: the machine line, the table's header,
# `table idle`, then `table loaded` with one busy loop per core, then the
# run time.
idle_then_loaded() {
    local began
    began=$(now)
    echo "$1"
    echo
    echo "$2"
    echo "|---|---|---|---|---|"
    table idle
    load_pids=""
    for _ in $(seq "$(nproc)"); do (while :; do :; done) & load_pids="$load_pids $!"; done
    table loaded
    kill $load_pids
    load_pids=""
    echo
    echo "run time: $(( ($(now) - began) / 1000000000 )) s; date: $(date -u +%Y-%m-%dT%H:%MZ)"
}
