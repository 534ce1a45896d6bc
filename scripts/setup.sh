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
# Debian packages, installed with apt-get only when missing:
# - WeasyPrint's system libraries (Pango, HarfBuzz via Pango): the PDF reports, every profile;
# - for the dev profile: chromium, which the browser tests (tests/e2e) drive through Playwright
#   (never `playwright install`: no browser download), and poppler-utils (pdftotext, pdftoppm),
#   with which the report tests read the PDFs, and pgbackrest, which deploy/pitr-drill (.ci/run)
#   drives for the point-in-time recovery drill; and prometheus, for its promtool, which checks
#   and unit-tests deploy/prometheus-alerts.yml (tests/unit/test_prometheus_alerts.py). Without
#   its recommends (no node exporter); the package also holds the Prometheus server, which apt
#   starts only where services may start (not in a container: policy-rc.d); and redis-server,
#   which the broker outage test runs on a port of its own and kills
#   (tests/integration/test_a_worker_outlives_a_redis_outage_and_catches_up.py).
missing=()
bare=()  # installed without their recommended packages
if command -v ldconfig >/dev/null && ! ldconfig -p | grep -q 'libpango-1.0.so.0'; then missing+=(libpango-1.0-0); fi
if command -v ldconfig >/dev/null && ! ldconfig -p | grep -q 'libpangoft2-1.0.so.0'; then missing+=(libpangoft2-1.0-0); fi
if [ "$kind" = dev ]; then
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    command -v pdftotext >/dev/null || missing+=(poppler-utils)
    command -v pgbackrest >/dev/null || missing+=(pgbackrest)
    command -v promtool >/dev/null || bare+=(prometheus)
    command -v redis-server >/dev/null || bare+=(redis-server)
fi
if [ "$((${#missing[@]} + ${#bare[@]}))" -gt 0 ] && command -v apt-get >/dev/null; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    if [ "${#missing[@]}" -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if [ "${#bare[@]}" -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${bare[@]}" >/dev/null
    fi
fi
