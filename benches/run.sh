#!/usr/bin/env bash
# Runs every xcsh benchmark (release build, a few minutes) and joins their
# report sections, each figure beside its same-run baseline, into one
# Markdown report headed by the machine it ran on. Arguments go to
# `cargo bench` (e.g. `benches/run.sh --bench call`).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"

rm -f "$target"/xcsh-bench/[0-9]*.md
cargo bench -p xcsh-benches "$@"

report="$target/xcsh-bench/report.md"
{
    echo "## Figures"
    echo
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//') ×$(nproc) cores, $(free -g 2>/dev/null | awk '/^Mem:/{print $2}') GiB, $(uname -srm)"
    echo "- toolchain: $(rustc -V)"
    echo "- load average (1/5/15 min) before the run: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- command: \`benches/run.sh\`"
    for section in "$target"/xcsh-bench/[0-9]*.md; do
        echo
        cat "$section"
    done
} > "$report"
echo
echo "report: $report"
