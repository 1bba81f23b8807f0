#!/usr/bin/env bash
# Time per problem and decided fraction by N: each problem solved with `perftlab proofgame --json --count`
# (plus the extra flags, e.g. --time-limit 10). Lines 'DIAGRAM [w|b] N' (the problem set
# benches/proofgame-problems.txt is written by the seeded generator in tests/proofgame.rs,
# bench_problems_are_the_generators, which checks this file against it; PROOFGAME_PROBLEMS=FILE writes it) or
# 'DIAGRAM N VERDICT NAME' (tests/data/proofgame-euclide.txt: the published verdict is kept in RAW).
# Usage: benches/proofgame.sh PROBLEMS [extra proofgame flags]; RAW=file keeps one line per problem:
# 'N verdict wall_s cpu_s nodes [published_verdict name]'. Besides wall seconds (which drift with the load of
# a shared machine) the table has load-independent columns: the median user + system CPU seconds of the
# process and the median positions the search entered (`nodes` of the JSON).
set -euo pipefail
source "$(dirname "$0")/proofgame-solve.sh"
bin=${PERFTLAB:-target/release/perftlab}
file=${1:?usage: benches/proofgame.sh PROBLEMS [flags]}
shift
raw=${RAW:-/dev/null}
cpu=$(mktemp)
trap 'rm -f "$cpu"' EXIT
while read -r -a f; do
  case "${f[0]:-#}" in '#'*) continue;; esac
  if [[ "${f[1]:-}" == w || "${f[1]:-}" == b ]]; then
    d="${f[0]} ${f[1]}"; n=${f[2]}; rest=("${f[@]:3}")
  else
    d=${f[0]}; n=${f[1]}; rest=("${f[@]:2}")
  fi
  printf '%s\t%s\t%s\n' "$n" "$(solve "$bin" "$cpu" "$d" "$n" "$@")" "${rest[*]:-}"
done < "$file" | tee "$raw" | awk -F'\t' '
  function median(name, k,    a, i, j, x, m) {
    m = 0
    for (i = 1; i <= t[k]; i++) a[i] = c[name, k, i]
    for (i = 2; i <= t[k]; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return a[int((t[k] + 1) / 2)]
  }
  {k = $1; t[k]++; c["w", k, t[k]] = $3; c["c", k, t[k]] = $4; c["n", k, t[k]] = $5; s[k] += $3
   if ($2 != "undetermined") d[k]++}
  END {print "plies\tproblems\tdecided\tmean_s\tmedian_s\tmedian_cpu_s\tmedian_nodes";
       for (k in t) printf "%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%d\n", k, t[k], d[k], s[k] / t[k], median("w", k),
         median("c", k), median("n", k)}' | sort -n
