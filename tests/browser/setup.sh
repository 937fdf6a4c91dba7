#!/usr/bin/env bash
# Installs JupyterLab from PyPI into a venv under the build dir, once: the browser test
# starts its server from there. An isolated venv (no --system-site-packages): JupyterLab 4
# needs newer jupyter_server/jupyter_client/traitlets than Debian 12 ships, and mixing the
# two sets breaks either side. The xcuda kernel is found through JUPYTER_PATH as usual.
# Usage: setup.sh VENV_DIR   (idempotent: a stamp records what was installed)
set -euo pipefail
venv=${1:?usage: setup.sh VENV_DIR}
requirement='jupyterlab>=4.2,<5'
stamp="$venv/.xcuda-installed"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$requirement" ] && "$venv/bin/jupyter-lab" --version >/dev/null 2>&1; then
  echo "browser setup: JupyterLab $("$venv/bin/jupyter-lab" --version) already in $venv"
  exit 0
fi
/usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement"
echo "$requirement" > "$stamp"
echo "browser setup: JupyterLab $("$venv/bin/jupyter-lab" --version) installed in $venv"
