#!/usr/bin/env bash
# Fill the folder that tools/gpu-check.sh carries to a lent GPU machine (docs/gpu-notes.md, "Checking on a
# lent GPU"). That machine has no Vulkan loader and reaches no package registry, so everything it needs is
# prepared here:
#   DIR/perftlab       the release binary, stripped (about 13 MB; the whole carry may be 64 MiB)
#   DIR/debs/*.deb     Debian's Vulkan loader (libvulkan1) and the GL dispatch libraries NVIDIA's driver
#                      loads (libglvnd0, libglx0, libgl1, libegl1, libopengl0, libgles2), from `apt-get download`
#   DIR/manifest.txt   what is in it: versions, SHA-256s, the newest GLIBC_ symbol version the binary and the
#                      loader need (gpu-check.sh compares it with the machine's C library before running)
#
# Usage: tools/gpu-carry.sh [--no-build] [DIR]     DIR defaults to .carry (git-ignored).
#   BIN=path   take this binary instead of target/release/perftlab (implies --no-build). A binary that
#              `cargo test --release --no-run` built is as good (same code; only dependency features differ)
#              and saves a second dependency build: BIN=target/release/perftlab tools/gpu-carry.sh
# Exit 0 when the folder is complete, 2 when something could not be made (the message says what).
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
dir=.carry
for a in "$@"; do
  case $a in
    --no-build) build=0 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "gpu-carry: unknown option '$a'" >&2; exit 2 ;;
    *) dir=$a ;;
  esac
done
[[ -n "${BIN:-}" ]] && build=0
bin=${BIN:-${CARGO_TARGET_DIR:-target}/release/perftlab}
die() { echo "gpu-carry: $*" >&2; exit 2; }

if (( build )); then
  cargo build --release --bin perftlab || die "cargo build --release --bin perftlab failed"
fi
[[ -x "$bin" ]] || die "no perftlab binary at '$bin' (build it, or set BIN)"
mkdir -p "$dir/debs"

# The binary, stripped (symbols are not needed there; 53 MB would crowd the 64 MiB carry).
tmp="$dir/perftlab.tmp"
if command -v strip >/dev/null; then
  strip -o "$tmp" "$bin" || die "strip failed on '$bin'"
else
  echo "gpu-carry: warning: no strip here, carrying the unstripped binary" >&2
  cp "$bin" "$tmp"
fi
chmod +x "$tmp"
mv -f "$tmp" "$dir/perftlab"

# The loader packages (the device notes' list). On an amd64 machine with package lists a plain download works;
# elsewhere (or when it fails) the device notes' recipe: amd64 lists of their own in /tmp/amd64.
pkgs=(libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
rm -f "$dir"/debs/*.deb
fetched=0
if [[ "$(dpkg --print-architecture 2>/dev/null)" == amd64 ]]; then
  (cd "$dir/debs" && apt-get download "${pkgs[@]}" >/dev/null 2>&1) && fetched=1
fi
if (( !fetched )); then
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64)
  mkdir -p /tmp/amd64/partial
  apt-get "${o[@]}" update >/dev/null 2>&1 || die "apt-get update (amd64 lists) failed: no package registry?"
  (cd "$dir/debs" && apt-get "${o[@]}" download "${pkgs[@]}" >/dev/null 2>&1) \
    || die "apt-get download ${pkgs[*]} failed"
fi
for p in "${pkgs[@]}"; do
  compgen -G "$dir/debs/${p}_*.deb" >/dev/null || die "package $p was not downloaded"
done

# The newest GLIBC_ version named in the binary's and the loader's version needs (their .dynstr), without
# binutils: the machine there may lack them.
glibc_need() { LC_ALL=C grep -aoE 'GLIBC_2\.[0-9]+(\.[0-9]+)?' "$@" | sed 's/.*GLIBC_//' | sort -uV | tail -1; }
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
for f in "$dir"/debs/*.deb; do dpkg-deb -x "$f" "$x" || die "dpkg-deb -x $f failed"; done
loader=$(find "$x" -name 'libvulkan.so.1*' -type f | head -1)
[[ -n "$loader" ]] || die "libvulkan1 holds no libvulkan.so.1"
need_bin=$(glibc_need "$dir/perftlab")
need_all=$(printf '%s\n' "$need_bin" "$(glibc_need "$loader")" | sort -V | tail -1)
{
  echo "# perftlab device-check carry, made $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m), $(getconf GNU_LIBC_VERSION)"
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "perftlab $(sha256sum "$dir/perftlab" | cut -d' ' -f1) $(stat -c %s "$dir/perftlab") bytes"
  echo "glibc_binary $need_bin"
  echo "glibc_needed $need_all"
  for f in "$dir"/debs/*.deb; do
    echo "deb $(basename "$f") $(sha256sum "$f" | cut -d' ' -f1)"
  done
} >"$dir/manifest.txt"
size=$(du -sb "$dir" | cut -f1)
echo "gpu-carry: $dir ready: $((size >> 20)) MiB; binary needs glibc >= $need_bin, with the loader >= $need_all"
(( size < 60 << 20 )) || die "$dir is $((size >> 20)) MiB: too much for the 64 MiB carry"
