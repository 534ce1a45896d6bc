"""No way around the ledger in the database itself: after deploy/postgres_roles.sql
the application role may read and append the ledger but never UPDATE, DELETE or TRUNCATE it,
and the auditor role only reads (and never a password hash or a session key).

The test copies the migrated test database's schema into a new database (pg_dump), runs the
role script on it as deploy/migrate does, connects as each role (local trust auth, like
deploy/smoke) and tries.
"""

import pytest
from psycopg import errors

from .roles_database import connect_as, roles_database

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

# Each append-only ledger table and one of its columns (to write an UPDATE that parses).
LEDGER_TABLES = {"ledger_event": "type", "ledger_posting": "currency", "ledger_idempotencyrecord": "key"}


@pytest.fixture(scope="module")
def roles_db(django_db_setup, django_db_blocker):
    with roles_database("pgroles") as db:
        yield db


@pytest.mark.parametrize("table", LEDGER_TABLES)
def test_the_application_role_appends_to_the_ledger_but_never_changes_it(roles_db, table):
    column = LEDGER_TABLES[table]
    with connect_as(roles_db, "casino_app") as app:
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
    with connect_as(roles_db, "casino_app") as app:
        for table in ("ledger_accountbalance", "staff_dealerassignment", "staff_devicetoken", "axes_accessattempt"):
            app.execute(f"UPDATE {table} SET id = id WHERE false")
            app.execute(f"DELETE FROM {table} WHERE false")


def test_the_auditor_role_only_reads_and_never_secrets(roles_db):
    with connect_as(roles_db, "casino_auditor") as auditor:
        for table in [*LEDGER_TABLES, "games_round", "games_bet", "cashier_patron", "staff_dealerassignment"]:
            auditor.execute(f"SELECT count(*) FROM {table}")
        auditor.execute("SELECT username, is_active FROM auth_user")
        with pytest.raises(errors.InsufficientPrivilege):
            auditor.execute("SELECT password FROM auth_user")
        with pytest.raises(errors.InsufficientPrivilege):
            auditor.execute("SELECT session_key FROM django_session")
        # A shoe's order and salt in play would give the next card, the cards drawn a hole card;
        # a PIN hash, the PIN; a suspicion case would tip the patron off.
        auditor.execute("SELECT id, state, commitment FROM games_shoe")
        auditor.execute("SELECT patron_id, set_at, failed_attempts FROM patrons_patronpin")
        auditor.execute("SELECT name, kind, table_code FROM staff_devicetoken")
        auditor.execute("SELECT key, fingerprint, position, created_at FROM ledger_idempotencyrecord")
        for secret in (
            'SELECT "order" FROM games_shoe',
            "SELECT salt FROM games_shoe",
            "SELECT drawn FROM games_shoe",  # the cards out of the shoe: a hole card in play
            "SELECT content FROM compliance_caserecord",  # a suspicion case: the compliance officer's
            "SELECT count(*) FROM compliance_caserecord",
            "SELECT * FROM games_shoe",
            "SELECT pin_hash FROM patrons_patronpin",
            "SELECT digest FROM staff_devicetoken",
            "SELECT result FROM ledger_idempotencyrecord",  # what a command answered: a deal's hole card once
        ):
            with pytest.raises(errors.InsufficientPrivilege):
                auditor.execute(secret)
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
    """The audit rebuild drops its timelines' indexes only where its role owns them:
    the application role does not, so its rebuild keeps them; it writes a rebuild's progress."""
    from ledger.projections.audit import _DROPPABLE_INDEXES

    with connect_as(roles_db, "casino_app") as app:
        assert app.execute(_DROPPABLE_INDEXES, ["ledger_auditentry"]).fetchall() == []
        app.execute("UPDATE ledger_projectionrebuild SET events_done = 0 WHERE false")
    with connect_as(roles_db, roles_db["user"]) as owner:
        names = [row[0] for row in owner.execute(_DROPPABLE_INDEXES, ["ledger_auditentry"]).fetchall()]
        assert names == ["ledger_audit_patron", "ledger_audit_round", "ledger_audit_table"]


def test_only_the_roles_that_append_take_the_ledgers_writer_lock(roles_db):
    """The auditor's role once took the writer's advisory key in a session left open: every
    append waited. Only the owner and the application may execute the advisory-lock functions."""
    from ledger.store import _WRITER_LOCK_KEY

    with connect_as(roles_db, "casino_auditor") as auditor:
        for call in ("pg_advisory_lock(%s)", "pg_try_advisory_lock(%s)", "pg_advisory_lock_shared(%s)"):
            with pytest.raises(errors.InsufficientPrivilege, match="permission denied for function"):
                auditor.execute(f"SELECT {call}", [_WRITER_LOCK_KEY])
        with pytest.raises(errors.InsufficientPrivilege), auditor.transaction():
            auditor.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITER_LOCK_KEY])
    for role in ("casino_app", "casino_owner"):
        with connect_as(roles_db, role) as appender, appender.transaction():
            appender.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITER_LOCK_KEY])
