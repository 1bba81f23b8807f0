#!/usr/bin/env bash
# Build the static page into web/dist/: the wasm module (release, SIMD128), its wasm-bindgen JavaScript glue,
# index.html and app.js. Serve web/dist/ with any static file server (docs/web.md).
#
#   web/build.sh            # the page; the WebGPU path when the library has the async GPU API
#   web/build.sh --no-gpu   # the CPU (WebAssembly) path only
#
# Needs: rustup target add wasm32-unknown-unknown; cargo install wasm-bindgen-cli --version 0.2.130 (exactly
# the version of the wasm-bindgen crate pinned in web/Cargo.toml). WASM_OPT=1 runs wasm-opt after it (see below).
set -euo pipefail
WASM_BINDGEN_VERSION=0.2.130
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
features=()
if [[ "${1:-}" != "--no-gpu" ]] && grep -q 'pub async fn perft_async' ../src/gpu/*.rs 2>/dev/null; then
  features=(--features webgpu)
fi
if ! command -v wasm-bindgen >/dev/null; then
  echo "build.sh: wasm-bindgen not found: cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION" >&2
  exit 2
fi
have="$(wasm-bindgen --version | awk '{print $2}')"
if [[ "$have" != "$WASM_BINDGEN_VERSION" ]]; then
  echo "build.sh: wasm-bindgen $have found, $WASM_BINDGEN_VERSION needed (the crate's version):" \
    "cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION" >&2
  exit 2
fi
target="${CARGO_TARGET_DIR:-$here/target}"
# SIMD128: the fast generator's portable code is auto-vectorised where LLVM can; every browser with WebGPU has it.
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128" \
  cargo build --release --locked --target wasm32-unknown-unknown "${features[@]}"
rm -rf dist
mkdir -p dist
wasm-bindgen --target web --no-typescript --out-dir dist \
  "$target/wasm32-unknown-unknown/release/perftlab_web.wasm"
# wasm-opt only when asked (WASM_OPT=1): Debian 12's binaryen (wasm-opt 108) writes the module's table
# export `__wbindgen_externrefs` with the index of the function table instead of wasm-bindgen's externref
# table, whatever the passes and --enable-* flags (even -O0), so the page fails to load ("WebAssembly.Table.set():
# Argument 1 is invalid for table"); it also did not make the gzip-compressed module smaller (docs/web.md).
# A result whose export is broken that way is refused.
if [[ "${WASM_OPT:-0}" == 1 ]]; then
  wasm-opt -O3 --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    dist/perftlab_web_bg.wasm -o dist/perftlab_web_bg.opt.wasm
  if ! python3 "$here/externref_check.py" dist/perftlab_web_bg.opt.wasm; then
    echo "build.sh: wasm-opt $(wasm-opt --version | awk '{print $3}') broke the module (above);" \
      "build without WASM_OPT=1 or with a newer binaryen" >&2
    rm -f dist/perftlab_web_bg.opt.wasm
    exit 1
  fi
  mv dist/perftlab_web_bg.opt.wasm dist/perftlab_web_bg.wasm
fi
cp index.html app.js dist/
raw=$(stat -c %s dist/perftlab_web_bg.wasm)
gz=$(gzip -9 -c dist/perftlab_web_bg.wasm | wc -c)
echo "web/dist/perftlab_web_bg.wasm: $raw bytes, $gz bytes gzip -9${features:+ (${features[*]})}"
