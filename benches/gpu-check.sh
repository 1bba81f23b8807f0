#!/usr/bin/env bash
# Real-GPU check: build release, run the GPU suite checks and the per-node cross-check, then the GPU benchmark
# (startpos perft 8 and 9 without and with merging + cache, Kiwipete perft 6 and 7). Every count is checked
# against the published value (Chess Programming Wiki, "Perft Results"); the script exits 1 on any mismatch.
#
# Usage: benches/gpu-check.sh [RESULTS_FILE]   (default: gpu-results.txt; env ADAPTER=NAME|INDEX picks the GPU,
#        QUICK=1 runs a small version (suites to 100 000 nodes, perft 6), e.g. on lavapipe)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-results.txt}
export NODEVICE_SELECT=1
adapter=()
if [[ -n "${ADAPTER:-}" ]]; then adapter=(--adapter "$ADAPTER"); fi
cargo build --release
bin=target/release/perftlab
if [[ -n "${CARGO_TARGET_DIR:-}" ]]; then bin="$CARGO_TARGET_DIR/release/perftlab"; fi
status=0
{
  echo "# perftlab GPU check, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  "$bin" devices
  "$bin" perft --backend gpu --depth 1 --verbose "${adapter[@]}" 2>&1 | grep '^gpu:' || true
} | tee "$out"

run() { # label, then perftlab arguments
  local label=$1; shift
  local t0=$SECONDS
  if "$bin" "$@" "${adapter[@]}" >>"$out.log" 2>&1; then
    echo "ok    $label ($((SECONDS - t0)) s)" | tee -a "$out"
  else
    echo "FAIL  $label ($((SECONDS - t0)) s, see $out.log)" | tee -a "$out"
    status=1
  fi
}

if [[ -n "${QUICK:-}" ]]; then max=100000; else max=1000000000; fi
for suite in standard.epd chess960.epd tricky.perft; do
  run "suite $suite --max-nodes $max" suite "tests/data/$suite" --backend gpu --max-nodes "$max"
  run "suite $suite --max-nodes $max --no-merge --hash 0" suite "tests/data/$suite" --backend gpu \
    --max-nodes "$max" --no-merge --hash 0
  run "verify $suite depth 3" verify --suite "tests/data/$suite" --depth 3 --backend gpu --against reference
done

bench() { # label, fen, depth, expected nodes, extra flags
  local label=$1 fen=$2 depth=$3 want=$4; shift 4
  local json
  if ! json=$("$bin" perft --backend gpu --fen "$fen" --depth "$depth" --json "$@" "${adapter[@]}" 2>>"$out.log"); then
    echo "FAIL  bench $label: perftlab failed (see $out.log)" | tee -a "$out"; status=1; return
  fi
  local nodes secs
  nodes=$(sed -E 's/.*"nodes":([0-9]+).*/\1/' <<<"$json")
  secs=$(sed -E 's/.*"seconds":([0-9.e+-]+).*/\1/' <<<"$json")
  if [[ "$nodes" != "$want" ]]; then
    echo "FAIL  bench $label: $nodes nodes, expected $want" | tee -a "$out"; status=1; return
  fi
  awk -v l="$label" -v n="$nodes" -v s="$secs" \
    'BEGIN { printf "bench %-44s %16s nodes %9.3f s %12.3f G nodes/s\n", l, n, s, n / s / 1e9 }' | tee -a "$out"
}

start='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
kiwi='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'
if [[ -n "${QUICK:-}" ]]; then
  bench "startpos 6, no merging, no cache" "$start" 6 119060324 --no-merge --hash 0
  bench "startpos 6, merging + cache" "$start" 6 119060324
  bench "kiwipete 5, merging + cache" "$kiwi" 5 193690690
else
  bench "startpos 8, no merging, no cache" "$start" 8 84998978956 --no-merge --hash 0
  bench "startpos 8, merging + cache" "$start" 8 84998978956 --hash 1024
  bench "startpos 9, no merging, no cache" "$start" 9 2439530234167 --no-merge --hash 0
  bench "startpos 9, merging + cache" "$start" 9 2439530234167 --hash 1024
  bench "kiwipete 6, merging + cache" "$kiwi" 6 8031647685 --hash 1024
  bench "kiwipete 7, merging + cache" "$kiwi" 7 374190009323 --hash 1024
fi
echo "results in $out (details in $out.log)"
exit $status
