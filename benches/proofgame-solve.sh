# Sourced by benches/proofgame.sh and benches/proofgame-oldnew.sh: one problem solved by one binary.
# solve BIN CPU_FILE DIAGRAM N [extra proofgame flags] prints 'verdict<TAB>wall_s<TAB>cpu_s<TAB>nodes' (the
# verdict and nodes of `perftlab proofgame --json --count`, wall seconds, user + system CPU seconds).
solve() {
  local bin=$1 cpu=$2 d=$3 n=$4 start end v verdict nodes secs
  shift 4
  start=$(date +%s.%N)
  v=$(/usr/bin/time -f '%U %S' -o "$cpu" "$bin" proofgame "$d" --plies "$n" --json --count "$@" || true)
  end=$(date +%s.%N)
  verdict=$(printf '%s' "$v" | sed -n 's/.*"verdict":"\([a-z_]*\)".*/\1/p')
  nodes=$(printf '%s' "$v" | sed -n 's/.*"nodes":\([0-9]*\).*/\1/p')
  secs=$(tail -n 1 "$cpu" | awk '{printf "%.3f", $1 + $2}')
  printf '%s\t%.3f\t%s\t%s\n' "$verdict" "$(echo "$end - $start" | bc)" "$secs" "${nodes:-0}"
}
