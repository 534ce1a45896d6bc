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
# The browser tests (tests/e2e) drive Debian's chromium through Playwright (never `playwright
# install`: no browser download). Installed for the dev profile when it is missing.
if [ "$kind" = dev ] && [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
