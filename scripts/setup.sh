#!/usr/bin/env bash
# Create the virtualenv (.venv) and install the pinned requirements: `scripts/setup.sh base|dev`.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-base}"
python="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
stamp=".venv/.installed-$kind"
if [ ! -f "$stamp" ] || [ "requirements/$kind.txt" -nt "$stamp" ] || [ requirements/base.txt -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "requirements/$kind.txt"
    touch "$stamp"
fi
