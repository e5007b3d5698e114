#!/bin/sh
# Installs the lait binary for this machine from the project's releases.
#
#   curl -fsSL https://github.com/SuzumiyaAoba/lait/releases/latest/download/install.sh | sh
#   sh install.sh [--print-target]
#
# Environment:
#   LAIT_VERSION           a release such as 0.2.0 (default: the latest release)
#   LAIT_INSTALL_BASE_URL  an https:// URL where SHA256SUMS and the archives are (default: GitHub releases)
#   LAIT_INSTALL_FROM      a local folder holding SHA256SUMS and the archive: installs without any network
#   LAIT_INSTALL_DIR       where `lait` (`lait.exe` on Windows) goes (default: ~/.local/bin)
#   LAIT_INSTALL_TARGET    skip detection and install this target, e.g. linux-x64-musl
#
# On Windows it runs in Git Bash or MSYS2 and unpacks the .zip with unzip, else with PowerShell.
# The archive's name and its checksum both come from the release's SHA256SUMS; an archive whose
# SHA-256 differs is refused and nothing is installed.
set -eu

repo_url="https://github.com/SuzumiyaAoba/lait/releases"

say() { printf '%s\n' "lait-install: $*" >&2; }
die() { say "$*"; exit 1; }

detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$os" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    # Git Bash and MSYS2 (GitHub's `shell: bash` on Windows), Cygwin.
    MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
    *) die "no lait release for the operating system '$os' (releases exist for Linux, macOS and Windows)" ;;
  esac
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no lait release for the CPU architecture '$arch' (releases exist for x86_64 and arm64)" ;;
  esac
  # Windows builds exist for x64 only (docs/install.md#archives-and-targets). Windows 11 on arm64 runs
  # x64 programs emulated, but whether lait does is untested, so it is the user's explicit choice.
  if [ "$os" = windows ] && [ "$arch" = arm64 ]; then
    die "no lait release for Windows on arm64 (only x64); LAIT_INSTALL_TARGET=windows-x64-baseline tries x64 emulation"
  fi
  # A shell under Rosetta reports x86_64 on an Apple Silicon Mac; the native build is the better one.
  if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    arch=arm64
  fi
  libc=""
  if [ "$os" = linux ]; then
    if ls /lib/ld-musl-* >/dev/null 2>&1 || { command -v ldd >/dev/null 2>&1 && ldd --version 2>&1 | grep -qi musl; }; then
      libc="-musl"
    fi
  fi
  # The default x64 builds need AVX2; older CPUs get the -baseline build.
  baseline=""
  if [ "$arch" = x64 ]; then
    # MSYS2 and Cygwin have a /proc/cpuinfo with the same flags as Linux's.
    if [ "$os" = linux ] || [ "$os" = windows ]; then
      grep -qw avx2 /proc/cpuinfo 2>/dev/null || baseline="-baseline"
    elif [ "$os" = darwin ]; then
      sysctl -n machdep.cpu.leaf7_features 2>/dev/null | grep -qi avx2 || baseline="-baseline"
    fi
  fi
  printf '%s\n' "$os-$arch$libc$baseline"
}

# Only https, also after a redirect: a downgrade to http would let anyone on the path swap the
# archive and SHA256SUMS together. curl enforces it itself; GNU wget is walked through its redirects
# one at a time so that each target can be checked; other wgets (BusyBox) cannot be held to it.
download() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl --proto '=https' --proto-redir '=https' -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget --version 2>/dev/null | grep -q 'GNU Wget' ||
      die "this wget cannot be kept to https across redirects; install curl and run this again"
    wget_https "$1" "$2"
  else
    die "neither curl nor wget is installed; install one of them and run this again"
  fi
}

wget_https() { # URL FILE
  url=$1
  hops=0
  while :; do
    case "$url" in
      https://*) ;;
      *) say "refusing $url: only https is allowed"; return 1 ;;
    esac
    headers=$(wget -q -S --max-redirect=0 -O "$2" "$url" 2>&1) && return 0
    location=$(printf '%s\n' "$headers" | sed -n 's/^ *[Ll]ocation: *//p' | tr -d '\r' | tail -n 1)
    [ -n "$location" ] || return 1
    case "$location" in
      /*) url=$(printf '%s' "$url" | sed 's|^\(https://[^/]*\).*|\1|')$location ;;
      *://*) url=$location ;;
      *) url=${url%/*}/$location ;;
    esac
    hops=$((hops + 1))
    [ "$hops" -le 10 ] || { say "too many redirects from $1"; return 1; }
  done
}

sha256_of() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else
    die "no sha256sum, shasum or openssl to check the download with; not installing an unchecked binary"
  fi
}

# Into $tmp. Git Bash may lack unzip; Windows' own PowerShell always has Expand-Archive, which gets
# the paths in Windows form (cygpath) and through its environment, so no path is parsed as code.
unpack() { # ARCHIVE
  case "$1" in
    *.tar.gz) tar -xzf "$1" -C "$tmp" ;;
    *.zip)
      if command -v unzip >/dev/null 2>&1; then
        unzip -q -o "$1" -d "$tmp"
      else
        ps=$(command -v powershell.exe 2>/dev/null || command -v pwsh 2>/dev/null) ||
          die "neither unzip nor PowerShell is installed to unpack $(basename "$1") with"
        zip=$1 into=$tmp
        if command -v cygpath >/dev/null 2>&1; then zip=$(cygpath -w "$zip") && into=$(cygpath -w "$into"); fi
        LAIT_UNPACK_ZIP=$zip LAIT_UNPACK_INTO=$into "$ps" -NoLogo -NoProfile -NonInteractive -Command \
          'Expand-Archive -LiteralPath $env:LAIT_UNPACK_ZIP -DestinationPath $env:LAIT_UNPACK_INTO -Force'
      fi ;;
  esac
}

case "${1:-}" in
  --print-target) detect_target; exit 0 ;;
  "") ;;
  *) say "unknown argument '$1' (usage: sh install.sh [--print-target])"; exit 2 ;;
esac

target=${LAIT_INSTALL_TARGET:-$(detect_target)}
case "$target" in
  "" | *[!a-z0-9-]*) die "LAIT_INSTALL_TARGET '$target' is not a target name such as linux-x64-musl" ;;
esac
from=${LAIT_INSTALL_FROM:-}
if [ -n "$from" ]; then
  [ -z "${LAIT_INSTALL_BASE_URL:-}" ] || die "set LAIT_INSTALL_FROM or LAIT_INSTALL_BASE_URL, not both"
  [ -d "$from" ] || die "LAIT_INSTALL_FROM '$from' is not a folder"
  base=${from%/}
  [ -n "$base" ] || base=/
elif [ -n "${LAIT_INSTALL_BASE_URL:-}" ]; then
  base=${LAIT_INSTALL_BASE_URL%/}
  case "$base" in
    https://*) ;;
    *) die "LAIT_INSTALL_BASE_URL must be an https:// URL (for a local folder use LAIT_INSTALL_FROM)" ;;
  esac
elif [ -n "${LAIT_VERSION:-}" ]; then
  base="$repo_url/download/v${LAIT_VERSION#v}"
else
  base="$repo_url/latest/download"
fi
dir=${LAIT_INSTALL_DIR:-${HOME:?HOME is not set; set LAIT_INSTALL_DIR}/.local/bin}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t lait-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Both files are copied into $tmp first, from the folder or the server, so the archive that is checked
# is the one that is unpacked.
fetch() { # NAME
  if [ -n "$from" ]; then
    [ -f "$base/$1" ] || die "$base holds no $1"
    cp "$base/$1" "$tmp/$1" || die "cannot read $base/$1"
  else
    download "$base/$1" "$tmp/$1" || die "cannot download $base/$1"
  fi
}

fetch SHA256SUMS
# `<sha256>  lait-<version>-<target>.tar.gz` (`.zip` for Windows); the target ends the name, so linux-x64
# never matches linux-x64-musl or linux-x64-baseline. A local folder may hold several releases:
# LAIT_VERSION picks one.
version='[^ /]+'
if [ -n "$from" ] && [ -n "${LAIT_VERSION:-}" ]; then
  case "${LAIT_VERSION#v}" in
    "" | *[!0-9A-Za-z.-]*) die "LAIT_VERSION '$LAIT_VERSION' is not a version such as 0.2.0" ;;
  esac
  version=$(printf '%s' "${LAIT_VERSION#v}" | sed 's/[.]/[.]/g')
fi
case "$target" in
  windows-*) ext=zip exe=lait.exe ;;
  *) ext=tar.gz exe=lait ;;
esac
line=$(grep -E "^[0-9a-f]{64}  lait-$version-$target\.$ext\$" "$tmp/SHA256SUMS" | head -n 1 || true)
[ -n "$line" ] || die "the release at $base has no archive for $target${LAIT_VERSION:+ (version ${LAIT_VERSION#v})}"
expected=${line%% *}
archive=${line##* }

if [ -n "$from" ]; then say "installing $archive from $base"; else say "downloading $archive"; fi
fetch "$archive"
actual=$(sha256_of "$tmp/$archive")
if [ "$actual" != "$expected" ]; then
  die "checksum mismatch for $archive (SHA256SUMS says $expected, the download is $actual); not installing"
fi

unpack "$tmp/$archive" || die "cannot unpack $archive"
binary="$tmp/${archive%.$ext}/$exe"
[ -f "$binary" ] || die "$archive holds no ${archive%.$ext}/$exe"
mkdir -p "$dir" || die "cannot create $dir"
# Copied beside the old binary and renamed over it, so a running lait is never overwritten half-way.
if ! { cp "$binary" "$dir/.lait.$$.tmp" && chmod 755 "$dir/.lait.$$.tmp" && mv -f "$dir/.lait.$$.tmp" "$dir/$exe"; }; then
  rm -f "$dir/.lait.$$.tmp"
  die "cannot write $dir/$exe"
fi

say "installed $("$dir/$exe" --version 2>/dev/null || echo lait) to $dir/$exe"
case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *) say "$dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
