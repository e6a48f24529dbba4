#!/bin/sh
# docs/python.md's install, as written there, with Debian's Python and nothing downloaded
# (PIP_NO_INDEX): into a throwaway venv that sees the system packages, and into the system
# Python with --break-system-packages under a throwaway --root. Each installed copy must
# import and load the library it packaged.
# Usage: install_check.sh PYTHON3 SOURCE_DIR WORK_DIR
set -eu
python3=$1 src=$2 work=$3
export PIP_NO_INDEX=1 PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
rm -rf "$work" && mkdir -p "$work" && cd "$src"

"$python3" -m venv --system-site-packages "$work/.venv"
"$work/.venv/bin/pip" install --quiet --no-build-isolation ./python
(cd "$work" && .venv/bin/python -c 'import verifybench; print("venv:", verifybench.library_version(), verifybench.__file__)')

"$python3" -m pip install --quiet --no-build-isolation --break-system-packages --root "$work/root" ./python
site=$(echo "$work"/root/usr/local/lib/python3*/dist-packages)
(cd "$work" && PYTHONPATH="$site" "$python3" -c 'import verifybench; print("system:", verifybench.library_version(), verifybench.__file__)')
