#!/usr/bin/env bash
# Time per problem and decided fraction by N: each 'DIAGRAM N' line solved with `perftlab proofgame --json
# --count` (plus the extra flags, e.g. --time-limit 10). The problem set benches/proofgame-problems.txt is
# written by the seeded generator in tests/proofgame.rs (bench_problems_are_the_generators, which checks this file against it; PROOFGAME_PROBLEMS=FILE writes it).
# Usage: benches/proofgame.sh PROBLEMS [extra proofgame flags]; RAW=file keeps one 'N verdict seconds' line
# per problem.
set -euo pipefail
bin=${PERFTLAB:-target/release/perftlab}
file=${1:?usage: benches/proofgame.sh PROBLEMS [flags]}
shift
raw=${RAW:-/dev/null}
while read -r line; do
  case "$line" in ''|'#'*) continue;; esac
  n=${line##* }
  d=${line% *}
  start=$(date +%s.%N)
  v=$("$bin" proofgame "$d" --plies "$n" --json --count "$@" || true)
  end=$(date +%s.%N)
  verdict=$(printf '%s' "$v" | sed -n 's/.*"verdict":"\([a-z_]*\)".*/\1/p')
  printf '%s\t%s\t%.3f\n' "$n" "$verdict" "$(echo "$end - $start" | bc)"
done < "$file" | tee "$raw" | sort -t$'\t' -k1,1n -k3,3n | awk -F'\t' '
  {t[$1]++; v[$1, t[$1]] = $3; s[$1] += $3; if ($2 != "undetermined") d[$1]++}
  END {print "plies\tproblems\tdecided\tmean_s\tmedian_s";
       for (n in t) printf "%s\t%d\t%d\t%.3f\t%.3f\n", n, t[n], d[n], s[n] / t[n], v[n, int((t[n] + 1) / 2)]}' | sort -n
