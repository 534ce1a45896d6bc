"""Are the tables ``ledger verify`` reads the guarded ledger? (``manage.py ledger verify``)

The hash chain proves the rows it reads are consistent; it cannot tell that they are the
ledger's. On PostgreSQL a schema named after the connecting role (``casino_app``, first on the
default search path ``"$user", public``) holding trigger-free copies of the ledger tables, or a
schema of views in front of the auditor, would be read in their place. The verifier reads
``public.ledger_event`` by name (``ledger.verify``); this module says what is wrong with the
deployment around it, each fault one sentence:

- the session's ``search_path`` is not pinned to the application's schema
  (``settings.DATABASE_SCHEMA``, ``public``), or an unqualified ledger table name resolves
  elsewhere;
- a relation outside that schema carries the name of one of its tables (it would answer for it
  on an unpinned search path), or a schema is named after a role (``"$user"``);
- an append-only table is missing, is not a table, is not owned by ``LEDGER_TABLE_OWNER`` (empty:
  the database's owner), or lacks one of its triggers or has it disabled;
- ``casino_guard.lock_broken()`` (deploy/postgres_roles.sql), where installed, names a fault.

SQLite has no schemas: only the append-only triggers are checked there.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection

APPEND_ONLY = (
    "ledger_event",
    "ledger_posting",
    "ledger_idempotencyrecord",
    "ledger_ledgeridentity",
    "ledger_checkpointrecord",
)
# Besides <table>_no_change and <table>_no_truncate (migrations 0002, 0004, 0013).
CHECKS = {"ledger_event": ("ledger_event_balanced",), "ledger_posting": ("ledger_posting_of_new_event",)}


def faults() -> list[str]:
    """What is wrong with the ledger tables' guard, one sentence a fault; ``[]`` when nothing."""
    if connection.vendor == "postgresql":
        return _postgresql_faults()
    if connection.vendor == "sqlite":
        return _sqlite_faults()
    return []


def _postgresql_faults() -> list[str]:
    schema = settings.DATABASE_SCHEMA
    found: list[str] = []
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('search_path'), current_user, current_database()")
        search_path, user, database = cursor.fetchone()
        path = [part.strip().strip('"') for part in search_path.split(",") if part.strip()]
        if path != [schema]:
            found.append(f'search_path is "{search_path}", not pinned to {schema}')
        for table in APPEND_ONLY:
            cursor.execute(
                "SELECT to_regclass(%s) = to_regclass(%s), (SELECT format('%%I.%%I', n.nspname, c.relname)"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass(%s))",
                [table, f"{schema}.{table}", table],
            )
            same, resolved = cursor.fetchone()
            if same is False:
                found.append(f"{table} resolves to {resolved} on this connection, not {schema}.{table}")
        # Relations elsewhere carrying a name of the schema's, and schemas named after a role.
        cursor.execute(
            """
            SELECT format('%%I.%%I', n.nspname, c.relname), c.relkind
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname NOT IN (%s, 'pg_catalog', 'information_schema', 'pg_toast', 'casino_guard')
               AND (n.nspname NOT LIKE 'pg\\_temp\\_%%' OR n.oid = pg_my_temp_schema())
               AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%%'
               AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
               AND c.relname IN (SELECT relname FROM pg_class WHERE relnamespace = to_regnamespace(%s))
             ORDER BY 1
            """,
            [schema, schema],
        )
        kinds = {"r": "table", "p": "table", "v": "view", "m": "materialized view", "f": "foreign table"}
        for name, kind in cursor.fetchall():
            found.append(f"{kinds[kind]} {name} shadows {schema}.{name.rsplit('.', 1)[-1]} (a copy outside {schema})")
        cursor.execute(
            "SELECT n.nspname FROM pg_namespace n JOIN pg_roles r ON r.rolname = n.nspname"
            " WHERE n.nspname <> %s AND n.nspname NOT LIKE 'pg\\_%%' ORDER BY 1",
            [schema],
        )
        for (name,) in cursor.fetchall():
            found.append(f'schema {name} is named after a role: "$user" on a search path puts it before {schema}')
        found += _table_faults(cursor, schema, database)
        cursor.execute("SELECT to_regprocedure('casino_guard.lock_broken()') IS NOT NULL")
        if cursor.fetchone()[0]:
            cursor.execute("SELECT casino_guard.lock_broken()")
            broken = cursor.fetchone()[0]
            if broken:
                found.append(f"casino_guard: {broken}")
    return found


def _table_faults(cursor, schema: str, database: str) -> list[str]:
    found = []
    cursor.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", [database])
    owner = settings.LEDGER_TABLE_OWNER or cursor.fetchone()[0]
    for table in APPEND_ONLY:
        cursor.execute(
            "SELECT c.oid, c.relkind, pg_get_userbyid(c.relowner) FROM pg_class c WHERE c.oid = to_regclass(%s)",
            [f"{schema}.{table}"],
        )
        row = cursor.fetchone()
        if row is None:
            found.append(f"table {schema}.{table} is missing")
            continue
        oid, kind, owned_by = row
        if kind not in ("r", "p"):
            found.append(f"{schema}.{table} is not a table (relkind {kind})")
            continue
        if owned_by != owner:
            found.append(f"{schema}.{table} is owned by {owned_by}, not {owner}")
        cursor.execute("SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = %s AND NOT tgisinternal", [oid])
        triggers = dict(cursor.fetchall())
        for name in (f"{table}_no_change", f"{table}_no_truncate", *CHECKS.get(table, ())):
            if name not in triggers:
                found.append(f"trigger {name} on {schema}.{table} is missing")
            elif triggers[name] not in ("O", "A"):
                found.append(f"trigger {name} on {schema}.{table} is disabled")
    return found


def _sqlite_faults() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'")
        present = {name for name, _ in cursor.fetchall()}
    expected = [f"{table}_no_{op}" for table in APPEND_ONLY for op in ("update", "delete")]
    expected += ["ledger_event_balanced", "ledger_posting_before_event"]
    return [f"trigger {name} is missing" for name in expected if name not in present]
