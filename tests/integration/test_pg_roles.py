"""Issue #10 §3, no way around the ledger in the database itself: after deploy/postgres_roles.sql
the application role may read and append the ledger but never UPDATE, DELETE or TRUNCATE it,
and the auditor role only reads (and never a password hash or a session key).

The test copies the migrated test database's schema into a new database (pg_dump), runs the
role script on it as deploy/migrate does, connects as each role (local trust auth, like
deploy/smoke) and tries.
"""

import shutil
import subprocess

import psycopg
import pytest
from django.db import connection
from psycopg import errors

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

# Each append-only ledger table and one of its columns (to write an UPDATE that parses).
LEDGER_TABLES = {"ledger_event": "type", "ledger_posting": "currency", "ledger_idempotencyrecord": "key"}


@pytest.fixture(scope="module")
def roles_db(django_db_setup, django_db_blocker):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: database roles and grants")
    if shutil.which("psql") is None or shutil.which("pg_dump") is None:
        pytest.skip("needs psql and pg_dump to copy the schema and run deploy/postgres_roles.sql")
    settings = connection.settings_dict
    source, copy = settings["NAME"], f"{settings['NAME']}_pgroles"
    admin = {"host": settings["HOST"] or "127.0.0.1", "port": settings["PORT"] or 5432, "user": settings["USER"]}
    where = ["-h", admin["host"], "-p", str(admin["port"]), "-U", admin["user"]]
    with psycopg.connect(**admin, dbname="postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{copy}"')
    try:
        # The migrated schema (tables, triggers, functions), copied without its owner and grants:
        # pg_dump needs no exclusive access, so other sessions on the test database may stay.
        schema = subprocess.run(
            ["pg_dump", "--schema-only", "--no-owner", "--no-privileges", *where, "-d", source],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        for script, text in (("-", schema), ("deploy/postgres_roles.sql", None)):
            done = subprocess.run(
                ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", *where, "-d", copy, "-f", script],
                input=text, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
        yield {**admin, "dbname": copy}
    finally:
        with psycopg.connect(**admin, dbname="postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')


def _as(db: dict, role: str) -> psycopg.Connection:
    return psycopg.connect(host=db["host"], port=db["port"], dbname=db["dbname"], user=role, autocommit=True)


@pytest.mark.parametrize("table", LEDGER_TABLES)
def test_the_application_role_appends_to_the_ledger_but_never_changes_it(roles_db, table):
    column = LEDGER_TABLES[table]
    with _as(roles_db, "casino_app") as app:
        app.execute(f"SELECT count(*) FROM {table}")
        privileges = app.execute(
            "SELECT has_table_privilege(current_user, %s, 'INSERT'), has_table_privilege(current_user, %s, 'UPDATE'),"
            " has_table_privilege(current_user, %s, 'DELETE'), has_table_privilege(current_user, %s, 'TRUNCATE')",
            [table] * 4,
        ).fetchone()
        assert privileges == (True, False, False, False)
        for statement in (f"UPDATE {table} SET {column} = {column}", f"DELETE FROM {table}", f"TRUNCATE {table}"):
            with pytest.raises(errors.InsufficientPrivilege):
                app.execute(statement)


def test_the_application_role_keeps_its_projections_and_the_staff_tables(roles_db):
    with _as(roles_db, "casino_app") as app:
        for table in ("ledger_accountbalance", "staff_dealerassignment", "staff_devicetoken", "axes_accessattempt"):
            app.execute(f"UPDATE {table} SET id = id WHERE false")
            app.execute(f"DELETE FROM {table} WHERE false")


def test_the_auditor_role_only_reads_and_never_secrets(roles_db):
    with _as(roles_db, "casino_auditor") as auditor:
        for table in [*LEDGER_TABLES, "games_round", "games_bet", "cashier_patron", "staff_dealerassignment"]:
            auditor.execute(f"SELECT count(*) FROM {table}")
        auditor.execute("SELECT username, is_active FROM auth_user")
        with pytest.raises(errors.InsufficientPrivilege):
            auditor.execute("SELECT password FROM auth_user")
        with pytest.raises(errors.InsufficientPrivilege):
            auditor.execute("SELECT session_key FROM django_session")
        assert auditor.execute("SHOW default_transaction_read_only").fetchone() == ("on",)
        for statement in (
            "INSERT INTO ledger_idempotencyrecord (key, fingerprint, result) VALUES ('k', 'f', '{}')",
            "UPDATE games_round SET state = state",
            "DELETE FROM cashier_patron",
        ):
            with pytest.raises((errors.InsufficientPrivilege, errors.ReadOnlySqlTransaction)):
                auditor.execute(statement)
        # Even with the read-only default switched off, the grants stop a write.
        auditor.execute("SET default_transaction_read_only = off")
        with pytest.raises(errors.InsufficientPrivilege):
            auditor.execute("UPDATE games_round SET state = state")


def test_the_application_role_rebuilds_the_audit_keeping_its_indexes_and_writes_rebuild_progress(roles_db):
    """The audit rebuild drops its timelines' indexes only where its role owns them (issue 27):
    the application role does not, so its rebuild keeps them; it writes a rebuild's progress."""
    from ledger.projections.audit import _DROPPABLE_INDEXES

    with _as(roles_db, "casino_app") as app:
        assert app.execute(_DROPPABLE_INDEXES, ["ledger_auditentry"]).fetchall() == []
        app.execute("UPDATE ledger_projectionrebuild SET events_done = 0 WHERE false")
    with _as(roles_db, roles_db["user"]) as owner:
        names = [row[0] for row in owner.execute(_DROPPABLE_INDEXES, ["ledger_auditentry"]).fetchall()]
        assert names == ["ledger_audit_patron", "ledger_audit_round", "ledger_audit_table"]
