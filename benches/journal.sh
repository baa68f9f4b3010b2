#!/usr/bin/env bash
# What the journal costs: pushes and resolves back to back through one
# `xcsh run` (a `file_ops_preview` push, then a `resolve` discard, CALLS
# times: 2×CALLS journal entries), with the journal and without it
# (`[journal] enabled = false`), alternating within each of ROUNDS rounds,
# idle and then under load (one busy loop per core). The figure is the
# median of the rounds for each; the ratio is with / without.
# Prints Markdown rows for BENCHMARKS.md. Needs the fixture pack built
# (`cargo build -p fixture-file-ops`, or any test build).
#
#   benches/journal.sh [XCSH] [ROUNDS] [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=benches/lib.sh
. benches/lib.sh
target="${CARGO_TARGET_DIR:-target}"
xcsh="$(realpath "${1:-$target/release/xcsh}")"
rounds="${2:-5}"
calls="${3:-1000}"
pack="$(dirname "$xcsh")/libfixture_file_ops.so"
[ -f "$pack" ] || { echo "benches/journal.sh: no $pack (build it: cargo build -p fixture-file-ops)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"; [ -n "${load_pids:-}" ] && kill $load_pids 2>/dev/null || true' EXIT
mkdir -p "$work/project" "$work/with" "$work/without"
cd "$work/project"
echo "keep" > kept.txt
for _ in $(seq "$calls"); do
    echo '{"tool":"file_ops_preview","arguments":{"write":{"kept.txt":"changed\n"}}}'
    echo '{"tool":"resolve","arguments":{"action":"discard","reason":"bench"}}'
done > "$work/calls.jsonl"
printf '[journal]\nenabled = false\n' > "$work/without/config.toml"
: > "$work/with/config.toml"

once() { # once with|without: nanoseconds of one run
    local t
    t=$(now)
    XCSH_CONFIG_DIR="$work/$1" XCSH_DATA_DIR="$work/$1/data" XCSH_CACHE_DIR="$work/$1/cache" \
        "$xcsh" run --plugin "$pack" - < "$work/calls.jsonl" > "$work/out.jsonl" 2> "$work/err.txt"
    echo $(($(now) - t))
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
table() { # LABEL: the rounds, alternating, then the row
    local label="$1" n
    : > "$work/with.ns"; : > "$work/without.ns"
    for n in $(seq "$rounds"); do
        once with >> "$work/with.ns"
        once without >> "$work/without.ns"
    done
    local entries
    entries=$(grep -c '"event"' "$work/with/data/journals/"*.jsonl 2>/dev/null || true)
    awk -v l="$label" -v c="$calls" -v w="$(median < "$work/with.ns")" -v o="$(median < "$work/without.ns")" 'BEGIN {
        printf "| %s | %d pushes + %d resolves, one `xcsh run` | %.3f s | %.3f s | %.2f× |\n", l, c, c, w/1e9, o/1e9, w/o
    }'
}
# The journal must be written, or the figure means nothing.
once with > /dev/null
grep -q '"event":"resolve"' "$work/with/data/journals/"*.jsonl \
    || { echo "benches/journal.sh: the run wrote no journal under $work/with/data/journals" >&2; exit 1; }
grep -q '"isError":false' "$work/out.jsonl" || { cat "$work/out.jsonl" >&2; exit 1; }
idle_then_loaded \
    "machine: $(nproc) cores, $(uname -sr); xcsh: $xcsh; load before: $(cut -d' ' -f1-3 /proc/loadavg)" \
    "| load | what | with the journal | without | ratio |"
