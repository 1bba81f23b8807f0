#!/usr/bin/env bash
# Stockfish ratio: runs perftlab's fast CPU backend (one thread, no hash table, no transposition merging) and
# Stockfish 15.1's `go perft` on the six CPW positions (start d6, Kiwipete d5, pos3 d7, pos4 d5, pos5 d5,
# pos6 d5) in the same run, every count checked, and prints both speeds and the ratio.
# Usage: benches/stockfish-ratio.sh [STOCKFISH] [extra perftlab bench options, e.g. --quick]
set -euo pipefail
cd "$(dirname "$0")/.."
sf="${1:-/usr/games/stockfish}"
shift || true
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/perftlab"
exec "$bin" bench --backend cpu --threads 1 --hash 0 --no-merge --stockfish "$sf" "$@"
