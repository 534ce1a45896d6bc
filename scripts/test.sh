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

status=0
if [ -n "$pg_url" ] && [[ "$pg_url" == postgres* ]]; then
    echo "== test suite on PostgreSQL"
    DATABASE_URL="$pg_url" .venv/bin/python -m pytest --create-db "$@" || status=$?
else
    echo "== no PostgreSQL reachable: the concurrency tests will be skipped"
fi
echo "== test suite on SQLite"
DATABASE_URL="sqlite:///$PWD/var/test-main.sqlite3" CELERY_BROKER_URL="" \
    .venv/bin/python -m pytest --create-db "$@" || status=$?
exit $status
