#!/usr/bin/env bash
# The main job: install, migrate the embedded default (SQLite file, eager Celery), play a
# demo session (black jack, Caribbean stud, classic stud with its rake, baccarat,
# trente-et-quarante, English roulette), print the summaries, rebuild the projections, verify the chain, close the gaming day and
# print its daily report; then serve a live floor on 127.0.0.1:8000: the tables open again on
# the next gaming day and a background player (manage.py simulate_floor) plays coups at every
# game at a human pace while the API and the dashboard serve.
#   scripts/demo.sh             # … and serve the live floor
#   scripts/demo.sh --no-serve  # … and stop (CI): the day is played and closed, as before
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh base
export DJANGO_SETTINGS_MODULE=casino.settings
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py collectstatic --noinput -v0
demo() {
    .venv/bin/python manage.py demo --spins "${DEMO_SPINS:-200}" \
        --blackjack-coups "${DEMO_BLACKJACK_COUPS:-100}" --stud-coups "${DEMO_STUD_COUPS:-50}" \
        --classic-stud-coups "${DEMO_CLASSIC_STUD_COUPS:-5}" \
        --baccarat-coups "${DEMO_BACCARAT_COUPS:-60}" --tq-coups "${DEMO_TQ_COUPS:-60}"
}
if [ "${1:-}" = "--no-serve" ]; then
    demo
    exit 0
fi
# Served, the demo day is the previous gaming day and the live floor plays today's: the demo's
# day starts at 23:59 (so now falls in yesterday's gaming day, which it closes), the served
# floor's at midnight (today's), so a coup played by hand after the close is not refused for a
# closed day. Both are calendar days in the casino's zone (CASINO_TIMEZONE, Europe/Paris).
GAMING_DAY_START="${DEMO_DAY_START:-23:59}" demo
export GAMING_DAY_START="${FLOOR_DAY_START:-00:00}"
.venv/bin/python manage.py demo_user
.venv/bin/python manage.py simulate_floor --pace "${FLOOR_PACE:-3}" --quiet &
player=$!
trap 'kill "$player" 2>/dev/null || true' EXIT INT TERM
port="${DEMO_PORT:-8000}"
echo "Serving a live floor on http://127.0.0.1:$port/ (API docs: /api/docs/, pit boss dashboard: /dashboard/, logins: pitboss, pitboss2, cashier, cagesup, auditor, runner, password = login, README \"Demo logins\");"
echo "a background player (manage.py simulate_floor, pid $player) plays coups at every table; Ctrl-C stops both."
echo "Other shells: GAMING_DAY_START=$GAMING_DAY_START .venv/bin/python manage.py … (with the default 06:00, a command run"
echo "between midnight and 06:00 today, the casino's time, stamps its events with the demo day just closed, which the"
echo "ledger refuses with a 409; run later, it lands on the floor's day, but after the next midnight on the day before)."
.venv/bin/python manage.py runserver "127.0.0.1:$port" --noreload
