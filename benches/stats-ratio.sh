#!/usr/bin/env bash
# Fast statistics benchmark (issue 10 §1): same-run ratios of `perft --stats` to plain `perft` with the same
# flags, and the time of `table --depth 8` (start position, all CPW columns).
# Runs `perft --depth D` and `perft --depth D --stats` alternately RUNS times (default 5) and prints each pair,
# the median of each and the ratio of the medians; then `table --depth T` once (T = 8 unless TABLE_DEPTH is
# set; TABLE_DEPTH=0 skips it), its wall time and CPU time (user + system, from /usr/bin/time or bash's times).
# Usage: benches/stats-ratio.sh [DEPTH (7)] [RUNS (5)] [extra perftlab options, e.g. --hash 256 --threads 2]
set -euo pipefail
cd "$(dirname "$0")/.."
depth="${1:-7}"
runs="${2:-5}"
shift 2 || shift $# || true
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/perftlab"

seconds() { # print the wall seconds of one run of perftlab "$@" (its stdout discarded)
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

plain=() stats=()
for ((i = 1; i <= runs; i++)); do
    p=$(seconds perft --depth "$depth" "$@")
    s=$(seconds perft --depth "$depth" --stats "$@")
    plain+=("$p") stats+=("$s")
    printf 'run %d: perft %.3f s, perft --stats %.3f s, ratio %.2f\n' "$i" "$p" "$s" "$(echo "$s / $p" | bc -l)"
done
mp=$(printf '%s\n' "${plain[@]}" | median)
ms=$(printf '%s\n' "${stats[@]}" | median)
printf 'median of %d: perft --depth %s %.3f s, with --stats %.3f s, ratio %.2f (target <= 5)\n' \
    "$runs" "$depth" "$mp" "$ms" "$(echo "$ms / $mp" | bc -l)"

tdepth="${TABLE_DEPTH:-8}"
if [ "$tdepth" -gt 0 ]; then
    start=$(date +%s.%N)
    before=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    "$bin" table --depth "$tdepth" --format csv --quiet "$@"
    end=$(date +%s.%N)
    ticks=$(getconf CLK_TCK)
    after=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
    printf 'table --depth %s: %.1f s wall, %.1f s CPU (target <= 60 s wall)\n' "$tdepth" \
        "$(echo "$end - $start" | bc -l)" "$(echo "($after - $before) / $ticks" | bc -l)"
fi
