#!/usr/bin/env bash
# The whole test suite. Installs the dev requirements, then runs pytest:
# - against DATABASE_URL when it is set (CI sets a fresh PostgreSQL database), otherwise
#   against the local PostgreSQL at 127.0.0.1:5432 when one answers;
# - and again against SQLite, so the ledger's contract (triggers, hash chain) is checked
#   on both backends. Tests that need real concurrent transactions run on PostgreSQL only.
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

# With PostgreSQL, the two runs go side by side (one core each; TEST_SIDE_BY_SIDE=0 runs them
# one after the other): the PostgreSQL run prints as it goes, the SQLite run's output follows
# when both are done. Each has its own database, so they share nothing but the machine.
sqlite_run() {
    DATABASE_URL="sqlite:///$PWD/var/test-main.sqlite3" CELERY_BROKER_URL="" \
        .venv/bin/python -m pytest --create-db "$@"
}

status=0
if [ -n "$pg_url" ] && [[ "$pg_url" == postgres* ]]; then
    sqlite_pid=""
    if [ "${TEST_SIDE_BY_SIDE:-1}" != "0" ]; then
        echo "== test suite on SQLite: started beside the PostgreSQL run, output in var/test-sqlite.log"
        sqlite_run "$@" >var/test-sqlite.log 2>&1 &
        sqlite_pid=$!
        trap 'kill "$sqlite_pid" 2>/dev/null || true' EXIT
    fi
    echo "== test suite on PostgreSQL"
    DATABASE_URL="$pg_url" .venv/bin/python -m pytest --create-db "$@" || status=$?
    if [ -n "$sqlite_pid" ]; then
        sqlite_status=0
        wait "$sqlite_pid" || sqlite_status=$?
        trap - EXIT
        echo "== test suite on SQLite (ran beside the PostgreSQL run): var/test-sqlite.log"
        cat var/test-sqlite.log
        [ "$sqlite_status" = 0 ] || status=$sqlite_status
        exit $status
    fi
else
    echo "== no PostgreSQL reachable: the concurrency tests will be skipped"
fi
echo "== test suite on SQLite"
sqlite_run "$@" || status=$?
exit $status
