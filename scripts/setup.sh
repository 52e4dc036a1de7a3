#!/usr/bin/env bash
# Installs the Debian packages tine needs that are missing; does nothing when all are
# present, so it is safe to run any number of times. Root (or sudo) is needed only when
# something is missing. The list is DEVELOPERS.md's; keep the two in step.
set -euo pipefail

PACKAGES=(build-essential cmake llvm-19-dev clang-19 libclang-rt-19-dev librsvg2-bin libhalide14-0-dev libz3-dev
          qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross chromium nodejs pkgconf
          libopencv-imgproc-dev libxnnpack-dev libpthreadpool-dev libclang-19-dev libsimde-dev libeigen3-dev
          libfftw3-dev libkissfft-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present (${PACKAGES[*]})"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q "${missing[@]}"
