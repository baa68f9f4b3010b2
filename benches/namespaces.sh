#!/usr/bin/env bash
# xcsh's own namespace engine beside bubblewrap running the same plan
# (XCSH_BWRAP), in one run, idle and under load: an isolated pack's
# start-up (`xcsh tools --isolate --plugin PACK`, a fresh cache each time
# so the pack's process really starts) and a `noop` call (`xcsh run
# --isolate`, CALLS lines less a run of one: the calls without the
# start-up). The two engines alternate within each round.
# Prints Markdown rows for BENCHMARKS.md. Needs the benchmark pack built
# (`cargo build -p xcsh-bench-pack`) and bubblewrap
# (scripts/provision-bubblewrap installs the pinned one on Debian).
#
#   benches/namespaces.sh [XCSH] [ROUNDS] [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/lib.sh
. benches/lib.sh
target="${CARGO_TARGET_DIR:-target}"
xcsh="$(realpath "${1:-$target/release/xcsh}")"
rounds="${2:-20}"
calls="${3:-20000}"
pack="$(dirname "$xcsh")/libxcsh_bench_pack.so"
bwrap="$(scripts/provision-bubblewrap)"
work="$(mktemp -d)"
trap 'rm -rf "$work"; [ -n "${load_pids:-}" ] && kill $load_pids 2>/dev/null || true' EXIT
cd "$work"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share"
mkdir -p "$HOME"
for _ in $(seq "$calls"); do echo '{"tool":"noop","arguments":{}}'; done > calls.jsonl
head -n 1 calls.jsonl > one.jsonl

# run ENGINE COMMAND...: COMMAND under ENGINE (built-in, or bwrap).
run() {
    local engine="$1"; shift
    if [ "$engine" = bwrap ]; then XCSH_BWRAP="$bwrap" "$@"; else env -u XCSH_BWRAP "$@"; fi
}
measure() { # prints "startup_ns call_ns" for ENGINE, summed over the rounds
    local engine="$1" start=0 call=0 t n
    for n in $(seq "$rounds"); do
        export XDG_CACHE_HOME="$work/cache-$engine-$n-$RANDOM"
        t=$(now); run "$engine" "$xcsh" tools --isolate --plugin "$pack" > out.txt; start=$((start + $(now) - t))
        grep -q "isolated, sandboxed (namespaces, " out.txt || { cat out.txt >&2; exit 1; }
    done
    # The calls' cost: a run of them less a run of one (the start-up).
    export XDG_CACHE_HOME="$work/cache-$engine-run"
    t=$(now); run "$engine" "$xcsh" run --isolate --plugin "$pack" - < one.jsonl > /dev/null; call=$((t - $(now)))
    t=$(now); run "$engine" "$xcsh" run --isolate --plugin "$pack" - < calls.jsonl > /dev/null; call=$((call + $(now) - t))
    echo "$start $call"
}
table() { # LABEL: one round of both engines, the rows
    local label="$1" b s bs bc ss sc
    read -r bs bc < <(measure builtin)
    read -r ss sc < <(measure bwrap)
    awk -v l="$label" -v r="$rounds" -v c="$calls" -v bs="$bs" -v bc="$bc" -v ss="$ss" -v sc="$sc" 'BEGIN {
        printf "| %s | start-up, built-in vs bubblewrap | %.2f ms | %.2f ms | %.2f× |\n", l, bs/r/1e6, ss/r/1e6, bs/ss
        printf "| %s | `noop` call (`xcsh run --isolate`, %d calls less 1), per call | %.2f µs | %.2f µs | %.2f× |\n", l, c, bc/(c-1)/1e3, sc/(c-1)/1e3, bc/sc
    }'
}
idle_then_loaded \
    "machine: $(nproc) cores, $(uname -sr); xcsh: $xcsh; bubblewrap: $("$bwrap" --version); load before: $(cut -d' ' -f1-3 /proc/loadavg)" \
    "| load | what | built-in | bubblewrap | ratio |"
