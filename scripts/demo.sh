#!/usr/bin/env bash
# The main job: install, migrate the embedded default (SQLite file, eager Celery), play a
# demo session (black jack, Caribbean stud, classic stud with its rake, baccarat,
# trente-et-quarante, English roulette), print the summaries, rebuild the projections, verify
# the chain, close the gaming day and print its daily report; then serve a live floor on
# 127.0.0.1:8000 while a background player (manage.py simulate_floor) plays coups at every
# game at a human pace.
#   scripts/demo.sh             # … and serve the live floor
#   scripts/demo.sh --no-serve  # … and stop (CI): the day is played and closed
# The demo day is yesterday's gaming day and the floor plays today's (demo/day_start.py), at any
# hour and however often the script runs: a demo day closed already keeps its figures (its
# reports are printed again) and the floor goes on with today's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh base
export DJANGO_SETTINGS_MODULE=casino.settings
export CASINO_NAME="${CASINO_NAME:-Demo casino}"  # the house its printed reports name
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py collectstatic --noinput -v0
# DEMO_DAY_START, FLOOR_DAY_START, DEMO_DAY, FLOOR_DAY, DEMO_RUN, DAYS_NOTE; the floor's day start
# is remembered for this database, so that any manage.py command run later lands on its day.
eval "$(env -u GAMING_DAY_START .venv/bin/python manage.py demo_days)"
[ -n "$DAYS_NOTE" ] && echo "Gaming days: $DAYS_NOTE."
if [ "$DEMO_RUN" = yes ]; then
    GAMING_DAY_START="$DEMO_DAY_START" .venv/bin/python manage.py demo --spins "${DEMO_SPINS:-200}" \
        --blackjack-coups "${DEMO_BLACKJACK_COUPS:-100}" --stud-coups "${DEMO_STUD_COUPS:-50}" \
        --classic-stud-coups "${DEMO_CLASSIC_STUD_COUPS:-5}" \
        --baccarat-coups "${DEMO_BACCARAT_COUPS:-60}" --tq-coups "${DEMO_TQ_COUPS:-60}"
fi
if [ "${1:-}" = "--no-serve" ]; then
    exit 0
fi
export GAMING_DAY_START="$FLOOR_DAY_START"
.venv/bin/python manage.py demo_user
port="${DEMO_PORT:-8000}"
if [ -n "$FLOOR_DAY" ]; then
    .venv/bin/python manage.py simulate_floor --pace "${FLOOR_PACE:-3}" --quiet &
    player=$!
    trap 'kill "$player" 2>/dev/null || true' EXIT INT TERM
    echo "Serving a live floor of gaming day $FLOOR_DAY on http://127.0.0.1:$port/ (API docs: /api/docs/, pit boss"
    echo "dashboard: /dashboard/, logins: pitboss, pitboss2, dealer, cashier, cagesup, auditor, runner, compliance, drop, drop2, count, count2, verifier; password = login, README"
    echo "\"Demo logins\"); a background player (manage.py simulate_floor, pid $player) plays coups at every table, and"
    echo "the dashboard's banner says whether it still plays. Ctrl-C stops both. Any manage.py command run in another"
    echo "shell against this database lands on the floor's day."
else
    echo "Serving on http://127.0.0.1:$port/ WITHOUT a live floor: $DAYS_NOTE."
fi
# runserver serves each request in a new thread: a connection kept for the next request
# (CONN_MAX_AGE) would never be reused, and a burst of parallel requests would hold the
# database's connection slots until they time out.
DJANGO_CONN_MAX_AGE=0 .venv/bin/python manage.py runserver "127.0.0.1:$port" --noreload
