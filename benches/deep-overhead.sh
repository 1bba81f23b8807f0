#!/usr/bin/env bash
# Overhead of the deep-run paths (issue 36): the same count run plainly, with --checkpoint (nothing to resume),
# with --split-depth S, killed (SIGTERM, or the signal named by KILL_SIGNAL, e.g. KILL_SIGNAL=KILL for kill -9)
# when 40 % of its journal is written and resumed, and as
# plan --shards 4 + 4 × run-unit + merge. The five are run interleaved, RUNS rounds (default 3); each run's CPU
# seconds (user + system, /usr/bin/time) and wall seconds are printed, then per path the medians and the
# ratios of the medians to the plain run's. Every path must print the plain count (the script stops if not).
# The load average is printed at the start and the end: on a shared machine the CPU seconds are the steadier
# figure.
# Usage: benches/deep-overhead.sh [DEPTH (7)] [RUNS (3)] [SPLIT (4)] [extra perft/run-unit options]
#        (default extra options: --threads 2; PERFTLAB=path runs that binary instead of building; FEN='…'
#        counts that position instead of the start position, e.g. Kiwipete; PATHS='plain killed' runs only
#        those paths, WANT=N skips the first count that finds the plain count, KILL_DELAY=S kills a random
#        0 to S seconds after the 40 % line instead of right after it: a kill that lands inside a batch;
#        SHOW_PARTS=1 prints each process's CPU and wall seconds above its path's line)
set -euo pipefail
cd "$(dirname "$0")/.."
depth="${1:-7}"
runs="${2:-3}"
split="${3:-4}"
shift 3 || shift $# || true
extra=("$@")
[ ${#extra[@]} -gt 0 ] || extra=(--threads 2)
# SIGTERM is what scancel, a pod eviction and kill send (and SIGINT, Ctrl-C, is handled alike): the run writes
# its table snapshot as it stops. KILL_SIGNAL=KILL measures kill -9, which keeps only the last periodic one.
signal="${KILL_SIGNAL:-TERM}"
if [ -n "${FEN:-}" ]; then pos=(--fen "$FEN"); else pos=(--startpos); fi
# plan gets the run's --backend (a plan for the GPU groups its shards for the GPU's batches).
plan_backend=()
for ((i = 0; i + 1 < ${#extra[@]}; i++)); do
    [ "${extra[i]}" = --backend ] && plan_backend=(--backend "${extra[i + 1]}")
done
if [ -z "${PERFTLAB:-}" ]; then
    cargo build --release --quiet
    bin="${CARGO_TARGET_DIR:-target}/release/perftlab"
else
    bin="$PERFTLAB"
fi
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results="$work/results.tsv"
: >"$results"

# timed NAME CMD…: run CMD under /usr/bin/time, append "NAME cpu wall" for it to $work/parts.
timed() {
    local name="$1"
    shift
    /usr/bin/time -f '%U %S %e' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || true
    tail -n 1 "$work/time" >"$work/time.last"
    read -r u s e <"$work/time.last"
    echo "$name $(echo "$u + $s" | bc -l) $e" >>"$work/parts"
}
nodes_of() { grep -o 'Nodes searched: [0-9]*' "$work/out" | awk '{print $3}'; }
check() { # check PATH: the last output printed the plain count
    local n
    n=$(nodes_of)
    if [ "$n" != "$want" ]; then
        echo "$1: printed '$n', not $want" >&2
        cat "$work/err" >&2
        exit 1
    fi
}
sum_parts() { # print "cpu wall" summed over $work/parts, then empty it
    awk '{c += $2; w += $3} END {printf "%.3f %.3f\n", c, w}' "$work/parts"
    : >"$work/parts"
}

plain() { timed plain "$bin" perft "${pos[@]}" --depth "$depth" --quiet "${extra[@]}"; check plain; }
checkpoint() {
    rm -f "$work/j.jsonl"
    timed checkpoint "$bin" perft "${pos[@]}" --depth "$depth" --checkpoint "$work/j.jsonl" --quiet "${extra[@]}"
    check checkpoint
}
split_run() {
    timed split "$bin" perft "${pos[@]}" --depth "$depth" --split-depth "$split" --quiet "${extra[@]}"
    check split
}
killed() { # --checkpoint, $KILL_SIGNAL once 40 % of the frontier is journaled, then the same command again
    local j="$work/k.jsonl" pid child total lines
    rm -f "$j"
    local args=(perft "${pos[@]}" --depth "$depth" --checkpoint "$j" --quiet "${extra[@]}")
    /usr/bin/time -f '%U %S %e' -o "$work/time" "$bin" "${args[@]}" >/dev/null 2>&1 &
    pid=$!
    while :; do
        total=$(head -n 1 "$j" 2>/dev/null | grep -o '"positions":[0-9]*' | cut -d: -f2 || true)
        lines=$( (wc -l <"$j") 2>/dev/null || echo 0)
        if [ -n "$total" ] && [ $((lines - 1)) -ge $((total * 4 / 10)) ]; then break; fi
        if ! kill -0 "$pid" 2>/dev/null; then echo "killed: finished before 40 %" >&2; exit 1; fi
        sleep 0.01
    done
    # The 40 % line was just written: by default the kill lands right after a journal write; KILL_DELAY
    # moves it to a random point of the batch in flight (uniform in [0, KILL_DELAY) seconds).
    if [ -n "${KILL_DELAY:-}" ]; then sleep "$(echo "$RANDOM / 32768 * $KILL_DELAY" | bc -l)"; fi
    child=$(pgrep -P "$pid" || true)
    [ -n "$child" ] && kill -"$signal" "$child"
    wait "$pid" || true
    tail -n 1 "$work/time" >"$work/time.last"
    read -r u s e <"$work/time.last"
    echo "killed $(echo "$u + $s" | bc -l) $e" >>"$work/parts"
    timed resumed "$bin" "${args[@]}"
    check killed
}
units() { # plan --shards 4, 4 × run-unit, merge (the plan at the same split ply)
    rm -rf "$work/plan"
    timed plan "$bin" plan "${pos[@]}" --depth "$depth" --split-depth "$split" --shards 4 --out "$work/plan" \
        "${plan_backend[@]}"
    for k in 0 1 2 3; do
        timed unit "$bin" run-unit "$work/plan" --shard "$k" --quiet "${extra[@]}"
    done
    timed merge "$bin" merge "$work/plan"
    check units
}

echo "perftlab $("$bin" --version 2>/dev/null | awk '{print $2}'), ${FEN:-start position} perft $depth, split ply $split," \
    "options: ${extra[*]}, $runs interleaved rounds, killed with SIG$signal; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$work/parts"
if [ -n "${WANT:-}" ]; then
    want="$WANT"
else
    "$bin" perft "${pos[@]}" --depth "$depth" --quiet "${extra[@]}" >"$work/out" 2>/dev/null
    want=$(nodes_of)
fi
for ((r = 1; r <= runs; r++)); do
    for path in ${PATHS:-plain checkpoint split_run killed units}; do
        "$path"
        # SHOW_PARTS=1: each process of the path (plan, each run-unit, merge; killed and resumed), CPU and wall s.
        if [ -n "${SHOW_PARTS:-}" ]; then awk '{printf "    %-10s cpu %8.3f s  wall %8.3f s\n", $1, $2, $3}' "$work/parts"; fi
        read -r c w < <(sum_parts)
        echo "$path $c $w" >>"$results"
        printf 'round %d  %-10s cpu %8.3f s  wall %8.3f s\n' "$r" "$path" "$c" "$w"
    done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$results" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for name in dict.fromkeys(r[0] for r in rows):
    c = [float(r[1]) for r in rows if r[0] == name]
    w = [float(r[2]) for r in rows if r[0] == name]
    med[name] = (statistics.median(c), statistics.median(w))
pc, pw = med["plain"]
print(f"{'path':<11} {'cpu s':>8} {'× plain':>8} {'wall s':>8} {'× plain':>8}   (medians of {len(c)})")
for name, (c, w) in med.items():
    print(f"{name:<11} {c:8.3f} {c / pc:8.3f} {w:8.3f} {w / pw:8.3f}")
EOF
