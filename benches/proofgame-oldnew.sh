#!/usr/bin/env bash
# Old binary against new on the same problems, interleaved per problem (the order alternating), so that the
# drifting load of a shared machine falls on both alike. Lines 'DIAGRAM N [VERDICT NAME]' (the format of
# tests/data/proofgame-euclide.txt; no side-to-move field: it follows from N). Prints one line per run:
# 'name N old|new published_verdict verdict wall_s cpu_s nodes load1'.
# Usage: benches/proofgame-oldnew.sh OLD_BIN NEW_BIN PROBLEMS [extra proofgame flags, e.g. --time-limit 10]
set -euo pipefail
source "$(dirname "$0")/proofgame-solve.sh"
old=${1:?usage: OLD_BIN NEW_BIN PROBLEMS [flags]}; new=${2:?}; file=${3:?}; shift 3
cpu=$(mktemp)
trap 'rm -f "$cpu"' EXIT
i=0
while read -r d n pub name; do
  case "${d:-#}" in '#'*) continue;; esac
  i=$((i + 1))
  if (( i % 2 )); then order="old new"; else order="new old"; fi
  for who in $order; do
    bin=$old; [[ $who == new ]] && bin=$new
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${name:-$i}" "$n" "$who" "${pub:-}" "$(solve "$bin" "$cpu" "$d" "$n" "$@")" \
      "$(cut -d' ' -f1 /proc/loadavg)"
  done
done < "$file"
