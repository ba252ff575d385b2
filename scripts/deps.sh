#!/usr/bin/env bash
# Install the Debian packages cuzk needs, only those that are missing.
#   scripts/deps.sh            build + test dependencies
#   scripts/deps.sh --interop  also Node.js/npm for the snarkjs interop tests
#   scripts/deps.sh --fuzz     also clang for the libFuzzer harnesses
#   scripts/deps.sh --browser  also Chromium, for the daemon's status-page test
set -euo pipefail
pkgs=(build-essential cmake pkg-config libgmp-dev libjansson-dev libmicrohttpd-dev libinih-dev
      libcurl4-openssl-dev curl wabt python3 util-linux libpq-dev postgresql)
for a in "$@"; do
  case "$a" in
    --interop) command -v node >/dev/null && command -v npm >/dev/null || pkgs+=(nodejs npm) ;;
    --fuzz) pkgs+=(clang libclang-rt-dev) ;;
    --browser) pkgs+=(chromium) ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
