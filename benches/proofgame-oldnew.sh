#!/usr/bin/env bash
# Old binary against new on the same problems, interleaved per problem (the order alternating), so that the
# drifting load of a shared machine falls on both alike. Lines 'DIAGRAM N [VERDICT NAME]' (the format of
# tests/data/proofgame-euclide.txt; no side-to-move field: it follows from N). Prints one line per run:
# 'name N old|new published_verdict verdict wall_s cpu_s nodes load1'.
# Usage: benches/proofgame-oldnew.sh OLD_BIN NEW_BIN PROBLEMS [extra proofgame flags, e.g. --time-limit 10]
set -euo pipefail
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
    s=$(date +%s.%N)
    v=$(/usr/bin/time -f '%U %S' -o "$cpu" "$bin" proofgame "$d" --plies "$n" --json --count "$@" || true)
    e=$(date +%s.%N)
    verdict=$(printf '%s' "$v" | sed -n 's/.*"verdict":"\([a-z_]*\)".*/\1/p')
    nodes=$(printf '%s' "$v" | sed -n 's/.*"nodes":\([0-9]*\).*/\1/p')
    secs=$(tail -n 1 "$cpu" | awk '{printf "%.2f", $1 + $2}')
    load=$(cut -d' ' -f1 /proc/loadavg)
    printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\n' "${name:-$i}" "$n" "$who" "${pub:-}" "$verdict" \
      "$(echo "$e - $s" | bc)" "$secs" "${nodes:-0}" "$load"
  done
done < "$file"
