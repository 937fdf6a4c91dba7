#!/usr/bin/env bash
# Installs nbgrader from PyPI into a venv under the build dir, once: the nbgrader round trip runs
# its generate_assignment and autograde from there. An isolated venv, as the browser test's (nbgrader
# needs newer jupyter_server/nbconvert than Debian 12 ships), with numpy, which `import xcuda` needs
# when nbgrader_config.py imports xcuda.nbgrader. The xcuda kernel that autograde starts is the build
# tree's (JUPYTER_PATH), running Debian's Python.
# Usage: setup_nbgrader.sh VENV_DIR   (idempotent: a stamp records what was installed)
set -euo pipefail
venv=${1:?usage: setup_nbgrader.sh VENV_DIR}
requirement='nbgrader>=0.9,<0.10'
stamp="$venv/.xcuda-installed"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$requirement" ] && "$venv/bin/nbgrader" --version >/dev/null 2>&1; then
  echo "nbgrader setup: $("$venv/bin/nbgrader" --version) already in $venv"
  exit 0
fi
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement" numpy
echo "$requirement" > "$stamp"
echo "nbgrader setup: $("$venv/bin/nbgrader" --version) installed in $venv"
