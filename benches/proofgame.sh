#!/usr/bin/env bash
# Time per problem and solved fraction by N: random games of N plies (from `perftlab`'s own generator is not
# exposed, so the problem file is given), each problem solved with `perftlab proofgame --json`.
# Usage: benches/proofgame.sh PROBLEMS [extra proofgame flags]   (lines 'DIAGRAM N')
set -euo pipefail
bin=${PERFTLAB:-target/release/perftlab}
file=${1:?usage: benches/proofgame.sh PROBLEMS [flags]}
shift
while read -r line; do
  case "$line" in ''|'#'*) continue;; esac
  n=${line##* }
  d=${line% *}
  start=$(date +%s.%N)
  v=$("$bin" proofgame "$d" --plies "$n" --json --count "$@" || true)
  end=$(date +%s.%N)
  verdict=$(printf '%s' "$v" | sed -n 's/.*"verdict":"\([a-z_]*\)".*/\1/p')
  printf '%s\t%s\t%.3f\n' "$n" "$verdict" "$(echo "$end - $start" | bc)"
done < "$file" | awk -F'\t' '{t[$1]++; s[$1]+=$3; if ($2!="undetermined") d[$1]++}
  END {print "plies\tproblems\tdecided\tmean_s"; for (n in t) printf "%s\t%d\t%d\t%.3f\n", n, t[n], d[n], s[n]/t[n]}' | sort -n
