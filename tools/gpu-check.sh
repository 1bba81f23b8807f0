#!/usr/bin/env bash
# The real-GPU check, made to work the first time on a lent machine that has no Vulkan loader and reaches no
# package registry (docs/gpu-notes.md, "Checking on a lent GPU").
#
# Here, once:   tools/gpu-carry.sh           (release binary + Debian's loader packages into .carry/)
# There:        tools/gpu-check.sh           (device tool: run, carry [".carry"], timeout_s 540)
# Here, proof:  tools/gpu-check.sh --dry-run (same steps, small depths, lavapipe, system loader hidden)
#
# Steps, each recorded in $OUT/gpu-check.json (rewritten after every step, so a killed check leaves what it
# did) with a summary in $OUT/gpu-check.txt and every stderr line in $OUT/gpu-check.log:
#  1. the binary (CARRY/perftlab, else BIN or target/release/perftlab) and the C library: the newest GLIBC_
#     version the binary and the carried loader need against the machine's (`getconf GNU_LIBC_VERSION`);
#  2. the loader: CARRY/debs/*.deb unpacked with dpkg-deb -x into a private folder put first on
#     LD_LIBRARY_PATH (nothing is written to /), NVIDIA's library folder added when present;
#  3. the driver: if `perftlab devices` finds no Vulkan adapter, VK_DRIVER_FILES is set to NVIDIA's ICD file
#     (/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json and other usual places); if still none and this
#     is root, the device notes' own recipe (dpkg -x each package into /, ldconfig) is tried once;
#  4. `perftlab devices` (text and JSON) and `nvidia-smi` are recorded; the adapter is forced to Vulkan
#     (`--adapter vulkan`, WGPU_BACKEND=vulkan) and must be a hardware GPU (a software one is refused unless
#     ALLOW_SOFTWARE=1);
#  5. the runs, every count checked against the published value (Chess Programming Wiki, "Perft Results"):
#     start position perft 9 three times without merging or tables, Kiwipete perft 7 once and start position
#     perft 11 once with merging and the default tables (the longest last). Each run has its own cap (45, 60,
#     150 s: 1.5-4 times its time at half the speed argued in the README) and the whole check a DEADLINE
#     (default 390 s, so machine start + check < 8 minutes); a run that cannot get the time it may need at half
#     speed is skipped, and so are the repetitions of a run that hit its cap; the summary says which and why.
#     `nvidia-smi` is read after every run; perftlab's own JSON (with the per-level `gpu.levels` table) is
#     kept whole.
#
# --dry-run: the same steps on lavapipe at small depths (start position 5 three times, Kiwipete 4, start
# position 5 with tables), inside a private mount namespace (unshare -m; -rm when not root) in which every
# libvulkan.so* of the system is covered by an empty file and the system's ICD folders by an empty folder, so
# the loader can only come from CARRY and the driver only through VK_DRIVER_FILES (lavapipe's ICD file, copied
# to OUT as NVIDIA's stands apart there). It first checks that the hiding works (no Vulkan adapter without the
# carried loader). OUT defaults to a new temporary folder.
#
# Environment: OUT (the tool sets it; default a temporary folder), CARRY (default .carry), BIN, ADAPTER
# (default vulkan), DEADLINE (seconds, default 390; 300 in the dry run), ALLOW_SOFTWARE=1.
# Exit: 0 every run done and exact; 1 a count wrong, a run failed, timed out or skipped; 2 the check could not
# start (no binary, C library too old, no loader, no adapter, bad arguments).
set -uo pipefail
cd "$(dirname "$0")/.."
script=$PWD/tools/gpu-check.sh
dry=0
for a in "$@"; do
  case $a in
    --dry-run) dry=1 ;;
    -h | --help) sed -n '2,40p' "$script"; exit 0 ;;
    *) echo "gpu-check: unknown argument '$a' (only --dry-run)" >&2; exit 2 ;;
  esac
done

# --dry-run: re-run this script inside a private mount namespace (the hiding happens in there).
if (( dry )) && [[ -z "${PERFTLAB_GPU_CHECK_INNER:-}" ]]; then
  out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/perftlab-gpu-check.XXXXXX")}
  mkdir -p "$out" || exit 2
  icd=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json /etc/vulkan/icd.d/lvp_icd*.json 2>/dev/null | head -1)
  if [[ -z "$icd" ]]; then
    echo "gpu-check --dry-run: no lavapipe ICD file (apt-get install mesa-vulkan-drivers)" >&2
    exit 2
  fi
  mkdir -p "$out/dry-icd" && cp "$icd" "$out/dry-icd/" || exit 2
  # As root a plain mount namespace; else (or where that is refused) one inside a user namespace.
  ns=()
  for extra in "" "--map-root-user"; do
    [[ -z "$extra" && $EUID -ne 0 ]] && continue
    try=(unshare --mount --propagation private $extra)
    if "${try[@]}" true 2>>"$out/unshare.err"; then
      ns=("${try[@]}")
      break
    fi
  done
  if (( ${#ns[@]} == 0 )); then
    echo "gpu-check --dry-run: cannot make a private mount namespace (unshare --mount): $(cat "$out/unshare.err")" >&2
    exit 2
  fi
  rm -f "$out/unshare.err"
  OUT=$out PERFTLAB_GPU_CHECK_INNER=1 PERFTLAB_DRY_ICD="$out/dry-icd/$(basename "$icd")" \
    exec "${ns[@]}" bash "$script" --dry-run
fi

out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/perftlab-gpu-check.XXXXXX")}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
carry=${CARRY:-.carry}
[[ -d "$carry" ]] && carry=$(cd "$carry" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/perftlab-gpu-work.XXXXXX")
trap 'rm -rf "$work"' EXIT
txt=$out/gpu-check.txt
log=$out/gpu-check.log
json=$out/gpu-check.json
: >"$txt"
: >"$log"
say() { echo "$*" | tee -a "$txt"; }
export NODEVICE_SELECT=1
deadline=${DEADLINE:-$(( dry ? 300 : 390 ))}
adapter=${ADAPTER:-vulkan}

# --- JSON helpers (no jq or python needed there) ---
jstr() { # a JSON string of $1
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/}
  s=${s//$'\n'/\\n}
  printf '"%s"' "$s"
}
setup_fields=() # "key":value pairs of the set-up, in order
field() { setup_fields+=("$(jstr "$1"):$2"); }
runs_json=()
status=0
verdict=""
write_json() {
  local IFS=,
  printf '{%s,"runs":[%s],"ok":%s,"verdict":%s}\n' "${setup_fields[*]}" "${runs_json[*]}" \
    "$([[ $status -eq 0 && -z "$verdict" ]] && echo true || echo false)" "$(jstr "${verdict:-ok}")" >"$json"
}
stop() { # stop CODE MESSAGE: the check cannot go on
  status=$1
  verdict=$2
  say "gpu-check: $2"
  write_json
  say "results: $json, summary: $txt, log: $log"
  exit "$1"
}

# nvidia-smi readings as a JSON array of objects (null without nvidia-smi).
smi() {
  command -v nvidia-smi >/dev/null || { echo null; return; }
  local q=index,name,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu,utilization.gpu,memory.total,memory.used,memory.free
  local csv
  csv=$(timeout 20 nvidia-smi --query-gpu=$q --format=csv,noheader,nounits 2>&1) || { jstr "nvidia-smi failed: $csv"; return; }
  local -a keys rows=()
  IFS=, read -ra keys <<<"$q"
  while IFS= read -r line; do
    local -a vals=()
    IFS=, read -ra vals <<<"$line"
    local obj="" i
    for i in "${!keys[@]}"; do
      local v=${vals[i]:-}
      v=${v# }
      obj+="${obj:+,}$(jstr "${keys[i]}"):$(jstr "$v")"
    done
    rows+=("{$obj}")
  done <<<"$csv"
  local IFS=,
  echo "[${rows[*]}]"
}

mode=$([[ $dry -eq 1 ]] && echo dry-run || echo device)
field mode "$(jstr "$mode")"
field started "$(jstr "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
field host "$(jstr "$(uname -srm)")"
field commit "$(jstr "$(git rev-parse HEAD 2>/dev/null || echo unknown)")"
say "# perftlab gpu-check ($mode) $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n), deadline $deadline s"

# The system's Vulkan loader files: the linker cache (ldconfig from /sbin or /usr/sbin, which a user's PATH
# may lack) and the usual library folders. The cache is read whole (awk, not `grep -q`: with pipefail an early
# exit of the reader kills ldconfig with SIGPIPE once its output outgrows the pipe, and the loader reads as
# absent on a machine with many libraries).
system_loaders() {
  local lc
  lc=$(command -v ldconfig || ls /sbin/ldconfig /usr/sbin/ldconfig 2>/dev/null | head -1)
  {
    [[ -n "$lc" ]] && "$lc" -p 2>/dev/null | awk '$1 ~ /^libvulkan\.so/ {print $NF}'
    ls /lib/libvulkan.so* /lib64/libvulkan.so* /usr/lib/libvulkan.so* /usr/lib/*/libvulkan.so* \
      /lib/*/libvulkan.so* /usr/local/lib/libvulkan.so* 2>/dev/null
  } | xargs -r readlink -f | sort -u
}

# --- dry run: hide the system's loader and ICD files (we are in a private mount namespace) ---
if (( dry )); then
  : >"$work/empty"
  mkdir -p "$work/empty.d"
  hidden=()
  mapfile -t libs < <(system_loaders)
  for f in "${libs[@]}"; do
    [[ -f "$f" ]] || continue
    mount --bind "$work/empty" "$f" || stop 2 "--dry-run: cannot cover $f"
    hidden+=("$f")
  done
  for d in /usr/share/vulkan/icd.d /usr/local/share/vulkan/icd.d /etc/vulkan/icd.d /etc/xdg/vulkan/icd.d \
    "${HOME:-/root}/.local/share/vulkan/icd.d"; do
    [[ -d "$d" ]] || continue
    mount --bind "$work/empty.d" "$d" || stop 2 "--dry-run: cannot cover $d"
    hidden+=("$d")
  done
  unset VK_DRIVER_FILES VK_ICD_FILENAMES VK_ADD_DRIVER_FILES XDG_DATA_DIRS XDG_CONFIG_DIRS
  h=""
  for f in "${hidden[@]}"; do h+="${h:+,}$(jstr "$f")"; done
  field hidden "[$h]"
  say "hidden: ${hidden[*]:-(nothing found to hide)}"
  (( ${#hidden[@]} > 0 )) || stop 2 "--dry-run: found no system Vulkan loader to hide"
fi

# --- 1. the binary and the C library ---
if [[ -n "${BIN:-}" ]]; then
  bin=$BIN
elif [[ -x "$carry/perftlab" ]]; then
  bin=$carry/perftlab
else
  bin=${CARGO_TARGET_DIR:-target}/release/perftlab
fi
[[ -x "$bin" ]] || stop 2 "no perftlab binary at '$bin' (run tools/gpu-carry.sh here, or set BIN)"
bin=$(readlink -f "$bin")
field binary "$(jstr "$bin")"
field binary_sha256 "$(jstr "$(sha256sum "$bin" | cut -d' ' -f1)")"
glibc_need() { LC_ALL=C grep -aoE 'GLIBC_2\.[0-9]+(\.[0-9]+)?' "$@" 2>/dev/null | sed 's/.*GLIBC_//' | sort -uV | tail -1; }
need=$(glibc_need "$bin")
have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
field glibc_needed "$(jstr "$need")"
field glibc_here "$(jstr "${have:-unknown}")"
if [[ -n "$have" && -n "$need" && "$(printf '%s\n' "$need" "$have" | sort -V | head -1)" != "$need" ]]; then
  stop 2 "the binary needs glibc $need, this machine has $have: build it on an older system"
fi
say "binary: $bin (needs glibc ${need:-?}, here ${have:-unknown})"
version=$("$bin" --version 2>>"$log") || stop 2 "the binary does not run here: $(tail -3 "$log")"
field version "$(jstr "$version")"

# --- 2. the loader ---
debs=()
[[ -d "$carry/debs" ]] && mapfile -t debs < <(ls "$carry"/debs/*.deb 2>/dev/null)
if (( ${#debs[@]} > 0 )); then
  prefix=$work/loader
  mkdir -p "$prefix"
  for f in "${debs[@]}"; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$f" "$prefix" 2>>"$log" || stop 2 "dpkg-deb -x $f failed"
    else
      (mkdir -p "$work/ar" && cd "$work/ar" && rm -f data.tar.* && ar x "$f" && tar -xf data.tar.* -C "$prefix") \
        2>>"$log" || stop 2 "unpacking $f (ar + tar) failed"
    fi
  done
  libdirs=$(find "$prefix" -name 'lib*.so*' -printf '%h\n' | sort -u | paste -sd:)
  lib=$(find "$prefix" -name 'libvulkan.so.1' | head -1)
  [[ -n "$lib" ]] || stop 2 "the carried packages ($carry/debs) hold no libvulkan.so.1"
  lneed=$(glibc_need "$(readlink -f "$lib")")
  if [[ -n "$have" && -n "$lneed" && "$(printf '%s\n' "$lneed" "$have" | sort -V | head -1)" != "$lneed" ]]; then
    stop 2 "the carried loader needs glibc $lneed, this machine has $have"
  fi
  export LD_LIBRARY_PATH=$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  loader=carried
  say "loader: carried, ${#debs[@]} packages from $carry/debs unpacked to $prefix"
elif (( dry )); then
  stop 2 "no carried loader ($carry/debs/*.deb; run tools/gpu-carry.sh) and the system's is hidden"
elif [[ -n "$(system_loaders)" ]]; then
  loader=system
  say "loader: the system's (no $carry/debs)"
else
  stop 2 "no Vulkan loader here and none carried ($carry/debs/*.deb: run tools/gpu-carry.sh and carry it)"
fi
for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
  [[ -d "$d" ]] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d
done
field ld_library_path "$(jstr "${LD_LIBRARY_PATH:-}")"

# --- 3. the driver ---
export WGPU_BACKEND=vulkan
vulkan_found() { "$bin" devices --json 2>>"$log" | grep -c '"backend":"vulkan"' >/dev/null; }
if (( dry )); then
  # The hiding must be real: without the carried loader no Vulkan adapter may be found.
  if LD_LIBRARY_PATH= VK_DRIVER_FILES=$PERFTLAB_DRY_ICD "$bin" devices --json 2>>"$log" | grep -c '"backend":"vulkan"' >/dev/null; then
    stop 2 "--dry-run: a Vulkan adapter was found without the carried loader: the system's is not hidden"
  fi
  say "hiding checked: no Vulkan adapter without the carried loader"
fi
driver_files=""
if ! vulkan_found; then
  if (( dry )); then
    candidates=("$PERFTLAB_DRY_ICD")
  else
    candidates=(/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json
      /etc/vulkan/icd.d/nvidia_icd.json)
    mapfile -t -O "${#candidates[@]}" candidates < <(find /usr/local/nvidia /usr/share/vulkan /etc/vulkan \
      -name '*icd*.json' 2>/dev/null)
  fi
  for c in "${candidates[@]}"; do
    [[ -f "$c" ]] || continue
    if VK_DRIVER_FILES=$c VK_ICD_FILENAMES=$c vulkan_found; then
      driver_files=$c
      break
    fi
  done
  if [[ -n "$driver_files" ]]; then
    export VK_DRIVER_FILES=$driver_files VK_ICD_FILENAMES=$driver_files
    for e in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json; do
      [[ -f "$e" ]] && export __EGL_VENDOR_LIBRARY_FILENAMES=$e
    done
    say "driver: VK_DRIVER_FILES=$driver_files"
  elif (( !dry && EUID == 0 && ${#debs[@]} > 0 )); then
    say "driver: none found; trying the device notes' recipe (dpkg -x into /, ldconfig)"
    for f in "${debs[@]}"; do dpkg -x "$f" / 2>>"$log"; done
    ldconfig 2>>"$log"
    if vulkan_found; then
      driver_files="found by the loader's own search after the recipe"
    else
      for c in "${candidates[@]}"; do
        [[ -f "$c" ]] || continue
        if VK_DRIVER_FILES=$c VK_ICD_FILENAMES=$c vulkan_found; then
          driver_files=$c
          export VK_DRIVER_FILES=$c VK_ICD_FILENAMES=$c
          break
        fi
      done
    fi
    loader="$loader, then the recipe's"
  fi
elif (( dry )); then
  stop 2 "--dry-run: the loader found a driver without VK_DRIVER_FILES: the system's ICD folders are not hidden"
else
  driver_files="found by the loader's own search"
fi
field loader "$(jstr "$loader")"
field driver_files "$(jstr "$driver_files")"
devices_text=$("$bin" devices 2>>"$log")
devices_json=$("$bin" devices --json 2>>"$log")
field devices "$(jstr "$devices_text")"
field devices_json "${devices_json:-null}"
field nvidia_smi_start "$(smi)"
write_json
[[ -n "$driver_files" ]] || stop 2 "no Vulkan adapter: the loader found no driver (devices: $devices_text)"
say "$devices_text"

# --- 4. the adapter ---
probe=$("$bin" perft --backend gpu --adapter "$adapter" --depth 1 --json 2>>"$log") \
  || stop 2 "no usable adapter for --adapter $adapter: $(tail -2 "$log")"
name=$(sed -E 's/.*"adapter":"([^"]*)".*/\1/' <<<"$probe")
field adapter "$(jstr "$name")"
say "adapter: $name"
if (( dry )); then
  [[ "$name" == *"(Vulkan, Cpu)"* ]] || stop 2 "--dry-run: expected lavapipe (Vulkan, Cpu), got '$name'"
elif [[ "$name" == *", Cpu)"* && -z "${ALLOW_SOFTWARE:-}" ]]; then
  stop 2 "refusing to time '$name': a software adapter (ALLOW_SOFTWARE=1 runs it anyway)"
fi
write_json

# --- 5. the runs ---
start='rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1'
kiwi='r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'
# id | label | fen | depth | expected (CPW) | repetitions | cap s | time needed at half speed, s | flags
if (( dry )); then
  cases=(
    "p9|startpos 5, no merging, no tables (for perft 9)|$start|5|4865609|3|120|60|--no-merge --hash 0"
    "k7|kiwipete 4, merging + tables (for kiwipete 7)|$kiwi|4|4085603|1|120|60|--hash 64"
    "p11|startpos 5, merging + tables (for perft 11)|$start|5|4865609|1|120|60|--hash 64"
  )
else
  # perft 9 ≈ 4.2-5.7 s at the argued 430-580 G nodes/s; perft 11 ≈ 25-50 s; Kiwipete 7 (374 G nodes) a few s.
  cases=(
    "p9|startpos 9, no merging, no tables|$start|9|2439530234167|3|45|12|--no-merge --hash 0"
    "k7|kiwipete 7, merging + default tables|$kiwi|7|374190009323|1|60|20|"
    "p11|startpos 11, merging + default tables|$start|11|2097651003696806|1|150|100|"
  )
fi
# Warm-up (untimed, not checked), once with each kind of flags: builds the pipelines and the kernel variants
# each mode dispatches, filling the driver's shader cache (small tables: the same kernels).
for flags in "--no-merge --hash 0" "--hash 64"; do
  # shellcheck disable=SC2086
  timeout -k 5 60 "$bin" perft --backend gpu --adapter "$adapter" --depth 5 $flags >/dev/null 2>>"$log"
done
skipped=()
for c in "${cases[@]}"; do
  IFS='|' read -r id label fen depth want reps cap needs flags <<<"$c"
  capped=""
  capped_limit=""
  for ((rep = 1; rep <= reps; rep++)); do
    left=$((deadline - SECONDS))
    reason=""
    if [[ -n "$capped" ]]; then
      reason="repetition $capped ran past its $capped_limit s limit"
    elif (( left < needs )); then
      reason="only $left s left of the $deadline s deadline; it may need $needs s at half the argued speed"
    fi
    run="{\"case\":$(jstr "$id"),\"label\":$(jstr "$label"),\"repetition\":$rep,\"depth\":$depth,\"expected\":$want"
    if [[ -n "$reason" ]]; then
      say "SKIP  $label (repetition $rep): $reason"
      skipped+=("$label #$rep: $reason")
      runs_json+=("$run,\"status\":\"skipped\",\"reason\":$(jstr "$reason")}")
      status=1
      write_json
      continue
    fi
    limit=$(( cap < left ? cap : left ))
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    res=$(timeout -k 10 "$limit" "$bin" perft --backend gpu --adapter "$adapter" --fen "$fen" --depth "$depth" \
      --json --verbose $flags 2>>"$log")
    rc=$?
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
    nodes=$(sed -nE 's/.*"nodes":([0-9]+).*/\1/p' <<<"$res" | head -1)
    secs=$(sed -nE 's/.*"seconds":([0-9.eE+-]+).*/\1/p' <<<"$res" | head -1)
    if (( rc == 124 || rc == 137 )); then
      st=timeout
      capped=$rep
      capped_limit=$limit
      msg="ran past its $limit s cap"
    elif (( rc != 0 )); then
      st=failed
      msg="exit $rc: $(tail -1 "$log")"
    elif [[ "$nodes" != "$want" ]]; then
      st=mismatch
      msg="$nodes nodes, expected $want"
    else
      st=ok
      msg=""
    fi
    run+=",\"status\":\"$st\",\"exit\":$rc,\"wall_seconds\":$wall,\"limit_seconds\":$limit"
    run+=",\"nodes\":${nodes:-null},\"seconds\":${secs:-null}"
    if [[ "$st" == ok && -n "$secs" ]]; then
      rate=$(awk -v n="$nodes" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
      run+=",\"nodes_per_second\":$rate"
      line=$(awk -v l="$label" -v r="$rep" -v n="$nodes" -v s="$secs" -v w="$wall" \
        'BEGIN { printf "ok    %-50s #%d %18s nodes %9.3f s (wall %7.1f s) %9.3f G nodes/s", l, r, n, s, w, n / s / 1e9 }')
      say "$line"
    else
      say "FAIL  $label (repetition $rep): $st, $msg"
      status=1
      run+=",\"reason\":$(jstr "$msg")"
    fi
    [[ "$res" == "{"* ]] && run+=",\"result\":$res"
    run+=",\"nvidia_smi\":$(smi)}"
    runs_json+=("$run")
    write_json
  done
done

# --- summary ---
field seconds_total "$SECONDS"
if (( ${#skipped[@]} > 0 )); then
  say "skipped runs: ${#skipped[@]}"
  for s in "${skipped[@]}"; do say "  $s"; done
fi
if (( status == 0 )); then
  say "gpu-check: every run done, every count exact ($SECONDS s)"
else
  verdict="some runs failed or were skipped"
  say "gpu-check: NOT OK: $verdict ($SECONDS s)"
fi
write_json
say "results: $json, summary: $txt, log: $log"
exit $status
