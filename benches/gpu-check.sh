#!/usr/bin/env bash
# Real-GPU check of the GPU backend: timed, count-checked perft runs with the per-level work report, all into
# $OUT/gpu-check.json plus a short text summary ($OUT/gpu-check.txt).
#
# Usage: OUT=DIR [BIN=path/to/perftlab] [ADAPTER=NAME|INDEX] [QUICK=1] [ALLOW_SOFTWARE=1] benches/gpu-check.sh
#
# - Uses a release binary built beforehand (BIN, default target/release/perftlab): building on a lent GPU
#   machine wastes its time. Records `perftlab devices`, `nvidia-smi` (clocks, power, memory) when present, the
#   commit and the binary's SHA-256.
# - Refuses to run unless the adapter is a discrete GPU (llvmpipe/lavapipe and other software adapters are
#   CPU rasterisers: their timings say nothing about a GPU); ALLOW_SOFTWARE=1 lifts that (CI runs the QUICK mode
#   on lavapipe from tests/gpu.rs).
# - One untimed warm-up, then three timed repetitions (min/median/max of perftlab's own `seconds`) of: start
#   position perft 8, 9, 10 without merging or tables (--no-merge --hash 0), perft 10 and 11 with merging and
#   tables, Kiwipete 6 and 7. The tables get `--hash HASH` MiB: by default 3/4 of the free memory nvidia-smi
#   reports less the default level budget (`--gpu-mem`, read from `perft --verbose`; a depth's table takes as
#   many storage bindings as it needs), or 4096 without nvidia-smi; HASH=MiB overrides. QUICK=1: start
#   position 5 (both ways) and Kiwipete 4 (with 320 MiB of tables, more than two bindings on lavapipe, so
#   remaining depth 2 has two buffers), for software adapters.
# - Every count is checked against the published value (Chess Programming Wiki, "Perft Results"); a mismatch
#   or a failed run voids the check: exit 1. Each repetition has a time limit, and the whole check stops at
#   DEADLINE seconds (default 570), so it ends inside 10 minutes; a case over its limit or past the deadline is a
#   failure, reported as such.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:?set OUT to the directory for gpu-check.json}
mkdir -p "$out"
bin=${BIN:-target/release/perftlab}
if [[ ! -x "$bin" ]]; then
  echo "gpu-check: no perftlab binary at '$bin' (build it first: cargo build --release, or set BIN)" >&2
  exit 2
fi
export NODEVICE_SELECT=1
adapter=()
if [[ -n "${ADAPTER:-}" ]]; then adapter=(--adapter "$ADAPTER"); fi
txt="$out/gpu-check.txt"
: >"$txt"
say() { echo "$*" | tee -a "$txt"; }

probe=$("$bin" perft --backend gpu --depth 1 --json "${adapter[@]}" 2>"$out/gpu-check.stderr") || {
  say "gpu-check: no usable GPU adapter (see $out/gpu-check.stderr)"
  exit 2
}
name=$(sed -E 's/.*"adapter":"([^"]*)".*/\1/' <<<"$probe")
if [[ "$name" != *"DiscreteGpu)"* && -z "${ALLOW_SOFTWARE:-}" ]]; then
  say "gpu-check: refusing to run on '$name': not a discrete GPU (set ALLOW_SOFTWARE=1 to run anyway)"
  exit 2
fi

# Transposition tables for the cases with tables: 3/4 of the free device memory less the default level budget
# when nvidia-smi tells it (the tables are not limited by bindings: a depth takes as many buffers as it needs).
verbose=$("$bin" perft --backend gpu --depth 1 --verbose "${adapter[@]}" 2>&1 >/dev/null)
budget=$(sed -nE 's/.*memory budget ([0-9]+) MiB.*/\1/p' <<<"$verbose" | head -1)
free=""
if command -v nvidia-smi >/dev/null; then
  free=$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -dc 0-9)
fi
if [[ -n "${HASH:-}" ]]; then
  hash=$HASH
elif [[ -n "$free" ]]; then
  hash=$(( free * 3 / 4 - ${budget:-4096} ))
  (( hash < 64 )) && hash=64
else
  hash=4096
fi

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
sha=$(sha256sum "$bin" | cut -d' ' -f1)
devices=$("$bin" devices 2>/dev/null | sed 's/\\/\\\\/g; s/"/\\"/g' | awk '{printf "%s\\n", $0}')
smi=""
if command -v nvidia-smi >/dev/null; then
  smi=$(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,memory.total,memory.used \
    --format=csv 2>&1 | sed 's/\\/\\\\/g; s/"/\\"/g' | awk '{printf "%s\\n", $0}')
fi
say "# perftlab gpu-check $(date -u +%Y-%m-%dT%H:%MZ), commit $commit, binary sha256 $sha"
say "# adapter: $name"
say "# transposition tables for the cases with tables: --hash $hash (MiB)"

start='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
kiwi='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'
# label | fen | depth | expected | time limit (s) | flags
if [[ -n "${QUICK:-}" ]]; then
  cases=(
    "startpos 5, no merging, no tables|$start|5|4865609|120|--no-merge --hash 0"
    "startpos 5, merging + tables|$start|5|4865609|120|"
    "kiwipete 4, merging + tables|$kiwi|4|4085603|120|--hash 320"
  )
else
  cases=(
    "startpos 8, no merging, no tables|$start|8|84998978956|60|--no-merge --hash 0"
    "startpos 9, no merging, no tables|$start|9|2439530234167|60|--no-merge --hash 0"
    "startpos 10, no merging, no tables|$start|10|69352859712417|150|--no-merge --hash 0"
    "startpos 10, merging + tables|$start|10|69352859712417|60|--hash $hash"
    "startpos 11, merging + tables|$start|11|2097651003696806|150|--hash $hash"
    "kiwipete 6, merging + tables|$kiwi|6|8031647685|30|--hash $hash"
    "kiwipete 7, merging + tables|$kiwi|7|374190009323|60|--hash $hash"
  )
fi

status=0
results=""
# Warm-up (untimed): builds the pipelines and fills the driver's shader cache.
"$bin" perft --backend gpu --depth 4 "${adapter[@]}" >/dev/null 2>&1 || true
for c in "${cases[@]}"; do
  IFS='|' read -r label fen depth want limit flags <<<"$c"
  times=()
  runs=""
  ok=1
  for rep in 1 2 3; do
    left=$(( ${DEADLINE:-570} - SECONDS ))
    if (( left <= 0 )); then
      say "FAIL  $label (repetition $rep): not run, past the ${DEADLINE:-570} s deadline"
      ok=0
      status=1
      break
    fi
    (( left < limit )) && limit=$left
    # shellcheck disable=SC2086
    json=$(timeout "$limit" "$bin" perft --backend gpu --fen "$fen" --depth "$depth" --json $flags "${adapter[@]}" \
      2>>"$out/gpu-check.stderr")
    rc=$?
    nodes=$(sed -nE 's/.*"nodes":([0-9]+).*/\1/p' <<<"$json")
    secs=$(sed -nE 's/.*"seconds":([0-9.e+-]+).*/\1/p' <<<"$json")
    if [[ $rc -ne 0 || "$nodes" != "$want" ]]; then
      say "FAIL  $label (repetition $rep): exit $rc, $nodes nodes, expected $want"
      ok=0
      status=1
      break
    fi
    times+=("$secs")
    runs+="${runs:+,}$json"
  done
  if [[ $ok -eq 1 ]]; then
    read -r tmin tmed tmax < <(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print a[1], a[2], a[3]}')
    line=$(awk -v l="$label" -v n="$want" -v a="$tmin" -v m="$tmed" -v b="$tmax" \
      'BEGIN { printf "ok    %-40s %18s nodes  min %8.3f  median %8.3f  max %8.3f s  %9.3f G nodes/s (median)", l, n, a, m, b, n / m / 1e9 }')
    say "$line"
  fi
  results+="${results:+,}{\"label\":\"$label\",\"depth\":$depth,\"expected\":$want,\"ok\":$([[ $ok -eq 1 ]] && echo true || echo false),\"runs\":[${runs}]}"
done

cat >"$out/gpu-check.json" <<EOF
{"commit":"$commit","binary_sha256":"$sha","adapter":"$name","hash_mb":$hash,"quick":$([[ -n "${QUICK:-}" ]] && echo true || echo false),"devices":"$devices","nvidia_smi":"$smi","ok":$([[ $status -eq 0 ]] && echo true || echo false),"cases":[${results}]}
EOF
say "results: $out/gpu-check.json, summary: $txt"
exit $status
