#!/usr/bin/env bash
# The main job: install, migrate the embedded default (SQLite file, eager Celery), play a
# demo session (black jack, Caribbean stud, baccarat, trente-et-quarante, English roulette),
# print the summaries, rebuild the projections, verify the chain, close the gaming day and
# print its daily report, then serve the API and the dashboard on 127.0.0.1:8000.
#   scripts/demo.sh             # … and serve
#   scripts/demo.sh --no-serve  # … and stop (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh base
export DJANGO_SETTINGS_MODULE=casino.settings
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py collectstatic --noinput -v0
.venv/bin/python manage.py demo --spins "${DEMO_SPINS:-200}" \
    --blackjack-coups "${DEMO_BLACKJACK_COUPS:-100}" --stud-coups "${DEMO_STUD_COUPS:-50}" \
    --baccarat-coups "${DEMO_BACCARAT_COUPS:-60}" --tq-coups "${DEMO_TQ_COUPS:-60}"
if [ "${1:-}" != "--no-serve" ]; then
    .venv/bin/python manage.py demo_user
    echo "Serving on http://127.0.0.1:8000/ (API docs: /api/docs/, pit boss dashboard: /dashboard/, login pitboss/pitboss); Ctrl-C to stop."
    exec .venv/bin/python manage.py runserver 127.0.0.1:8000 --noreload
fi
