#!/usr/bin/env bash
# Render a perftlab HTML report and take a screenshot of it in headless Chromium, to look at what a reader
# sees (offline: the page loads nothing from elsewhere).
#
#   docs/screenshot.sh [REPORT.html [OUT.png [WIDTHxHEIGHT]]]
#
# Without arguments it first writes docs/example-report.html: a `stress` run of the deliberately buggy fake
# engine (tests/fixtures/fake_engine.py, planted bugs `castle-attacked` and `pin`), 30 random positions at
# depth 2, seed 3. Needs Debian's `chromium` (apt-get install chromium) and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
report="${1:-docs/example-report.html}"
png="${2:-${report%.html}.png}"
size="${3:-1200x1800}"
if [ $# -eq 0 ]; then
  cargo build --release --quiet
  # Exit code 1 is expected: the fake engine's bugs are found.
  ./target/release/perftlab stress --engine "python3 tests/fixtures/fake_engine.py --bug castle-attacked --bug pin" \
    --positions 30 --depth 2 --seed 3 --quiet --report "$report" >/dev/null || [ $? -eq 1 ]
fi
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --hide-scrollbars --window-size="${size/x/,}" \
  --screenshot="$(realpath -m "$png")" "file://$(realpath "$report")" 2>/dev/null
echo "wrote $png"
