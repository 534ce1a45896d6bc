#!/usr/bin/env bash
# The whole test suite. Installs the dev requirements, then runs pytest, spread over the
# machine's cores by pytest-xdist (TEST_WORKERS, default: every core; 1 runs it in one process):
# - against DATABASE_URL when it is set (CI sets a fresh PostgreSQL database), otherwise
#   against the local PostgreSQL at 127.0.0.1:5432 when one answers;
# - then against SQLite, so the ledger's contract (triggers, hash chain) is checked on both
#   backends: after a PostgreSQL run, only the tests that reach the database. Tests that need real concurrent transactions, and the browser tests, run on
#   PostgreSQL only (the SQLite run leaves tests/e2e out).
# With CI=true a browser test that skips fails the run (tests/e2e/conftest.py), and so does a
# missing promtool (tests/unit/test_prometheus_alerts.py: the alert rules unchecked).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev
export DJANGO_SETTINGS_MODULE=casino.settings
mkdir -p var

pg_url="${DATABASE_URL:-}"
if [ -z "$pg_url" ] && .venv/bin/python -c "import psycopg; psycopg.connect('host=127.0.0.1 port=5432 user=postgres dbname=postgres', connect_timeout=2).close()" 2>/dev/null; then
    pg_url="postgres://postgres@127.0.0.1:5432/casino"
fi

workers="${TEST_WORKERS:-$(nproc 2>/dev/null || echo 1)}"
spread=()
if [ "$workers" -gt 1 ]; then
    # loadgroup: the tests that share the cluster's roles or the broker stay on one worker each
    # (tests/conftest.py); every other test goes to whichever worker is free.
    spread=(-n "$workers" --dist loadgroup)
fi

status=0
if [ -n "$pg_url" ] && [[ "$pg_url" == postgres* ]]; then
    echo "== test suite on PostgreSQL ($workers workers)"
    require_browser=""
    [ "${CI:-}" = "true" ] && require_browser=1
    DATABASE_URL="$pg_url" CASINO_REQUIRE_BROWSER_TESTS="$require_browser" \
        .venv/bin/python -m pytest --create-db "${spread[@]}" "$@" || status=$?
else
    if [ -n "$pg_url" ]; then
        echo "== DATABASE_URL is not PostgreSQL: SQLite only (var/test-main.sqlite3); the concurrency and browser tests will be skipped"
    else
        echo "== no PostgreSQL reachable: the concurrency and browser tests will be skipped"
    fi
fi
# After a PostgreSQL run, SQLite runs only the tests that reach the database: the others
# (the pure rules, settings, templates) prove the same on either backend and passed already.
database_only=""
[ -n "$pg_url" ] && [[ "$pg_url" == postgres* ]] && database_only=1
echo "== test suite on SQLite ($workers workers${database_only:+, the tests that reach the database})"
DATABASE_URL="sqlite:///$PWD/var/test-main.sqlite3" CELERY_BROKER_URL="" CASINO_TESTS_DATABASE_ONLY="$database_only" \
    .venv/bin/python -m pytest --create-db --ignore=tests/e2e "${spread[@]}" "$@" || {
    rc=$?
    [ "$rc" = 5 ] || status=$rc  # 5: nothing left to run here (only browser tests were asked for)
}
exit $status
