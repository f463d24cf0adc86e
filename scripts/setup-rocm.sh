#!/usr/bin/env bash
# scripts/setup-rocm.sh [PREFIX_BASE]
#
# Prepares what porter's compile checks (porter/verify.py, the tests, benchmarks/) need on a
# Debian 12 (bookworm) x86_64 machine without a GPU:
#
#   * bookworm's clang-22, lld-22, clang-tools-22 and libclang-rt-22-dev (the compiler-rt
#     builtins CMake's HIP language links with), and bookworm's cmake (3.25) and make for the
#     build-file tests, installed with apt when missing;
#   * PREFIX_BASE/7.2: ROCm 7.2 (HIP, HSA, comgr, device libraries and the library headers)
#     taken from Debian's `experimental` suite;
#   * PREFIX_BASE/6.4: ROCm 6.4 taken from Debian's `sid` suite;
#   * hipify-perl (from sid) in both prefixes' usr/bin, for side-by-side benchmarks;
#   * for CMake's HIP language (PREFIX_BASE/7.2 only): the shared libraries whose files the
#     CMake package configs of hip and hipblas check for (libamdhip64, comgr, HSA runtime,
#     hipBLAS), and usr/hip-root/lib/cmake -> ../../lib/<triplet>/cmake, because CMake 3.25
#     looks for hip-lang under <ROCm root>/lib/cmake while Debian installs the configs under
#     lib/<triplet>/cmake (pass -DCMAKE_HIP_COMPILER_ROCM_ROOT=PREFIX/usr/hip-root). These
#     libraries need glibc 2.38: objects build on bookworm, executables only link with
#     -Wl,--allow-shlib-undefined and do not run here.
#
# The ROCm prefixes are private and never installed: the .deb files are fetched with a private
# apt state (its own sources list built from the Debian mirror that this machine's apt already
# uses, its own lists, cache and an empty dpkg status) and unpacked with `dpkg -x`. The system's
# apt configuration and dpkg database are left untouched.
#
# Idempotent: a finished prefix carries a stamp file and is reused as it is (a run with
# everything in place takes well under a second). ROCM_VERSIONS="7.2" limits the work to a
# subset. PREFIX_BASE defaults to /opt/porter-rocm; porter and its tests read
# PORTER_ROCM_PREFIX (default /opt/porter-rocm/7.2) and PORTER_ROCM64_PREFIX (/opt/porter-rocm/6.4).
set -euo pipefail

BASE=${1:-${PORTER_ROCM_BASE:-/opt/porter-rocm}}
VERSIONS=${ROCM_VERSIONS:-"7.2 6.4"}
CLANG_MAJOR=22
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
STAMP_NAME=.porter-rocm.ok

# Debian suite that carries each ROCm release, in order of preference per package.
suites_for() {
  case $1 in
    7.2) echo "experimental sid" ;;
    6.4) echo "sid" ;;
    *) echo "unsupported ROCm version '$1' (known: 7.2, 6.4)" >&2; return 2 ;;
  esac
}

CORE_PKGS="libamdhip64-dev libhsa-runtime-dev libamd-comgr-dev"
LIB_PKGS="libhipblas-dev libhipblas-common-dev libhipblaslt-dev librocblas-dev
  libhipcub-dev librocprim-dev librocthrust-dev
  libhipfft-dev librocfft-dev libhipsolver-dev librocsolver-dev
  libhiprand-dev librocrand-dev libhipsparse-dev librocsparse-dev
  libmiopen-dev librccl-dev libroctx-dev librocwmma-dev"

# Runtime libraries for CMake's package configs (see above), per ROCm version (sonames differ).
runtime_pkgs_for() {
  case $1 in
    7.2) echo "libamdhip64-7 libamd-comgr3 libhsa-runtime64-1 libhipblas3" ;;
    *) echo "" ;;
  esac
}
# A prefix is rebuilt when its package list changes (the list's hash is in the stamp).
sig_for() {
  local rt; rt=$(runtime_pkgs_for "$1")
  if [ -n "$rt" ]; then
    echo $CORE_PKGS $LIB_PKGS $rt hip-root | md5sum | cut -c1-12
  else
    echo $CORE_PKGS $LIB_PKGS | md5sum | cut -c1-12
  fi
}

log() { printf 'setup-rocm: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------
# 1. Host compiler (bookworm ships clang-22 through bookworm-security / updates).
need_clang() {
  [ -x /usr/bin/clang++-$CLANG_MAJOR ] && [ -x /usr/lib/llvm-$CLANG_MAJOR/bin/ld.lld ] \
    && [ -x /usr/lib/llvm-$CLANG_MAJOR/bin/clang-offload-bundler ] \
    && compgen -G "/usr/lib/llvm-$CLANG_MAJOR/lib/clang/*/lib/linux/libclang_rt.builtins-x86_64.a" >/dev/null \
    && command -v cmake >/dev/null && command -v make >/dev/null \
    && return 1
  return 0
}
if need_clang; then
  log "installing clang-$CLANG_MAJOR, lld-$CLANG_MAJOR, clang-tools-$CLANG_MAJOR, libclang-rt-$CLANG_MAJOR-dev"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    clang-$CLANG_MAJOR lld-$CLANG_MAJOR clang-tools-$CLANG_MAJOR libclang-rt-$CLANG_MAJOR-dev \
    cmake make >/dev/null
  need_clang && die "clang-$CLANG_MAJOR toolchain still incomplete after apt-get install"
fi
command -v perl >/dev/null || die "perl is missing (needed by hipify-perl)"

# ---------------------------------------------------------------------------------------------
# 2. Which prefixes still need work?
hip_version_of() {  # DIR/usr -> "7.2.4xxxx" from hip/hip_version.h
  local h=$1/include/hip/hip_version.h
  [ -f "$h" ] || return 1
  sed -n 's/^#define HIP_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9][0-9]*\).*/\2/p' "$h" | paste -sd.
}
prefix_complete() {  # DIR VERSION: headers of that HIP version, device bitcode, hipify-perl
  local dir=$1 want=$2 have
  have=$(hip_version_of "$dir/usr" 2>/dev/null) || return 1
  case $have in "$want".*) ;; *) return 1 ;; esac
  compgen -G "$dir/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode/ocml.bc" >/dev/null || return 1
  [ -f "$dir/usr/bin/hipify-perl" ] || return 1
  if [ -n "$(runtime_pkgs_for "$want")" ]; then
    [ -f "$dir/usr/hip-root/lib/cmake/hip-lang/hip-lang-config.cmake" ] || return 1
  fi
}

mkdir -p "$BASE"
BASE=$(cd "$BASE" && pwd)
TODO=""
for v in $VERSIONS; do
  suites_for "$v" >/dev/null
  # A prefix is reused only when this script made it with the same package list: a prefix from
  # another tool, or from an older list, is rebuilt (CI must see what a fresh machine sees).
  if grep -qs "pkgs $(sig_for "$v")" "$BASE/$v/$STAMP_NAME" && prefix_complete "$BASE/$v" "$v"; then
    continue
  fi
  TODO="$TODO $v"
done

if [ -n "$TODO" ]; then
  # -------------------------------------------------------------------------------------------
  # 3. Private apt state with sid and experimental, on the mirror this machine already uses.
  STATE=$BASE/.apt
  rm -rf "$STATE"
  mkdir -p "$STATE/sources.d" "$STATE/preferences.d" "$STATE/lists/partial" \
           "$STATE/cache/archives/partial"
  # First Debian archive URI of the machine's apt sources (deb822 *.sources or one-line lists),
  # skipping the security archive: that is where sid and experimental live as well.
  MIRROR=$(
    {
      for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' "$f"
      done
      for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ } print $i }' "$f"
      done
    } | grep -E '/debian/?$' | grep -v -- '-security' | head -n 1 || true)
  [ -n "$MIRROR" ] || die "no Debian archive found in /etc/apt/sources.list{,.d}"
  [ -f "$KEYRING" ] || die "$KEYRING missing (package debian-archive-keyring)"
  cat > "$STATE/sources.d/porter-rocm.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: sid experimental
Components: main
Signed-By: $KEYRING
EOF
  : > "$STATE/status"
  APT=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$STATE/sources.d"
       -o Dir::Etc::Preferences=/dev/null -o "Dir::Etc::PreferencesParts=$STATE/preferences.d"
       -o "Dir::State::Lists=$STATE/lists" -o "Dir::State::status=$STATE/status"
       -o "Dir::Cache=$STATE/cache" -o APT::Sandbox::User=root
       -qq)
  log "reading sid and experimental package lists from the machine's Debian mirror"
  apt-get "${APT[@]}" update

  # version_in SUITE PKG -> the version of PKG that SUITE carries (empty when it has none)
  version_in() {
    apt-cache "${APT[@]}" madison "$2" 2>/dev/null \
      | awk -F'|' -v s=" $1/" 'index($3, s) { gsub(/ /, "", $2); print $2; exit }'
  }
  # pick PKG SUITES... -> "PKG=VERSION" from the first suite that has it
  pick() {
    local p=$1 s v; shift
    for s in "$@"; do
      v=$(version_in "$s" "$p")
      [ -n "$v" ] && { echo "$p=$v"; return 0; }
    done
    return 1
  }

  for v in $TODO; do
    read -r -a SUITES <<<"$(suites_for "$v")"
    MAIN=${SUITES[0]}
    STAGE=$BASE/.stage-$v
    DEBS=$STATE/debs-$v
    rm -rf "$STAGE" "$DEBS"
    mkdir -p "$STAGE" "$DEBS"

    # Device libraries are built per LLVM major; clang-22 reads bitcode of LLVM 22 or older.
    DL=""
    for n in $(seq $CLANG_MAJOR -1 15); do
      if [ -n "$(version_in "$MAIN" rocm-device-libs-$n)" ]; then DL=$n; break; fi
    done
    [ -n "$DL" ] || die "no rocm-device-libs-N (N <= $CLANG_MAJOR) in $MAIN"

    WANT=()
    for p in $CORE_PKGS rocm-device-libs-$DL; do
      s=$(pick "$p" "$MAIN") || die "$p not found in $MAIN"
      WANT+=("$s")
    done
    s=$(pick hipify-perl sid) || die "hipify-perl not found in sid"
    WANT+=("$s")
    for p in $(runtime_pkgs_for "$v"); do
      s=$(pick "$p" "${SUITES[@]}") || die "$p not found in ${SUITES[*]}"
      WANT+=("$s")
    done
    for p in $LIB_PKGS; do
      # Library headers are best effort: a library missing from the suite costs that library only.
      if s=$(pick "$p" "${SUITES[@]}"); then WANT+=("$s"); else log "warning: $p is in none of: ${SUITES[*]}"; fi
    done

    log "ROCm $v: downloading ${#WANT[@]} packages from ${SUITES[*]}"
    (cd "$DEBS" && apt-get "${APT[@]}" download "${WANT[@]}")
    for d in "$DEBS"/*.deb; do dpkg -x "$d" "$STAGE"; done
    for d in "$DEBS"/*.deb; do dpkg-deb --show --showformat='${Package} ${Version}\n' "$d"; done \
      | sort > "$STAGE/versions.txt"

    HV=$(hip_version_of "$STAGE/usr") || die "ROCm $v: no hip/hip_version.h after unpacking"
    case $HV in
      "$v".*) ;;
      *) die "ROCm $v: $MAIN now carries HIP $HV, not $v; update suites_for() in $0" ;;
    esac
    BC=$(ls -d "$STAGE"/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode | sort -V | tail -n 1)
    HIP_ROOT_LINE=""
    if [ -n "$(runtime_pkgs_for "$v")" ]; then
      TRIPLET_CMAKE=$(cd "$STAGE/usr/lib" && ls -d */cmake/hip-lang | head -n 1)
      [ -n "$TRIPLET_CMAKE" ] || die "ROCm $v: no lib/<triplet>/cmake/hip-lang after unpacking"
      mkdir -p "$STAGE/usr/hip-root/lib"
      ln -sfn "../../lib/${TRIPLET_CMAKE%/hip-lang}" "$STAGE/usr/hip-root/lib/cmake"
      HIP_ROOT_LINE="PORTER_CMAKE_HIP_ROCM_ROOT=$BASE/$v/usr/hip-root"
    fi
    cat > "$STAGE/porter-rocm.env" <<EOF
# ROCm $v prefix for porter's compile checks (HIP $HV, Debian $MAIN, rocm-device-libs-$DL)
PORTER_ROCM_USR=$BASE/$v/usr
PORTER_HIP_VERSION=$HV
PORTER_HIP_DEVICE_LIB_PATH=$BASE/$v/usr/${BC#"$STAGE"/usr/}
PORTER_HIP_CLANG=/usr/bin/clang++-$CLANG_MAJOR
$HIP_ROOT_LINE
EOF
    echo "hip $HV from $MAIN, rocm-device-libs-$DL, pkgs $(sig_for "$v")" > "$STAGE/$STAMP_NAME"

    # Swap the finished prefix into place (an old directory or symlink is replaced).
    if [ -L "$BASE/$v" ] || [ -f "$BASE/$v" ]; then
      rm -f "$BASE/$v"
    elif [ -d "$BASE/$v" ]; then
      rm -rf "$BASE/.old-$v"; mv "$BASE/$v" "$BASE/.old-$v"
    fi
    mv "$STAGE" "$BASE/$v"
    rm -rf "$BASE/.old-$v" "$DEBS"
    log "ROCm $v ready: $BASE/$v/usr (HIP $HV, $(wc -l < "$BASE/$v/versions.txt") packages)"
  done
  rm -rf "$STATE"
fi

for v in $VERSIONS; do
  prefix_complete "$BASE/$v" "$v" || die "ROCm $v prefix at $BASE/$v is incomplete"
  echo "ROCm $v: $BASE/$v (HIP $(hip_version_of "$BASE/$v/usr"))"
done
echo "compiler: /usr/bin/clang++-$CLANG_MAJOR"
echo "hipify-perl: perl $BASE/${VERSIONS%% *}/usr/bin/hipify-perl -quiet-warnings FILE.cu -o=FILE.hip"
