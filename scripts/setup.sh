#!/usr/bin/env bash
# Installs the Debian packages verifybench builds with. Idempotent; run as root on a fresh
# machine (or with sudo). CUDA 13 (nvcc) is expected to be installed already: it is not a
# Debian package here.
set -euo pipefail
packages=(
  build-essential cmake ninja-build ccache git
  libeigen3-dev libcli11-dev libyaml-cpp-dev catch2 libbenchmark-dev
  nlohmann-json3-dev libfmt-dev
  # libFuzzer + ASan/UBSan runtimes for scripts/fuzz.sh (gcc has no libFuzzer); the
  # unversioned names follow Debian's default clang.
  clang libclang-rt-dev
  # python/verifybench's tests (ctest "python: ..."): the system Python 3 with NumPy (the
  # peers runner reads exported cases into NumPy arrays), and pip, setuptools and venv so
  # that docs/python.md's install (a venv with the system packages) works offline.
  python3 python3-numpy python3-pip python3-setuptools python3-venv
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
else
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: WARNING: nvcc not found (expected /usr/local/cuda/bin/nvcc); CUDA targets cannot build" >&2
fi
