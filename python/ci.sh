#!/usr/bin/env bash
# The Python bindings' gate, as a new user meets them: a fresh virtual
# environment, `pip install ./python` (maturin builds the extension with
# cargo's release profile, into the workspace's target/ unless
# CARGO_TARGET_DIR says otherwise), then the pytest suite.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

venv="$(mktemp -d)"
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check numpy pytest
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$here"

# The pytest script, not `python -m pytest`: the latter would put the
# working directory first on sys.path, where python/boxtree lacks the
# compiled module.
cd "$here"
"$venv/bin/pytest" -q -p no:cacheprovider tests
