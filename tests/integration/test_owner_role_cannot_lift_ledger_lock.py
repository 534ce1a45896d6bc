"""The owner role cannot lift the ledger's append-only lock without superuser
rights (ALTER TABLE ledger_posting DISABLE TRIGGER USER, DROP FUNCTION ledger_reject_change()
CASCADE, GRANT UPDATE … TO casino_app). deploy/postgres_roles.sql, run as the superuser,
installs event triggers (schema casino_guard) that refuse each of them once the ledger holds an
event; ordinary DDL (an index, a table of its own) still runs.

As tests/integration/test_pg_roles.py: the migrated schema copied into a new database, the role
script run on it as the superuser, then one event appended and the attacks run as casino_owner.
"""

import subprocess

import pytest
from psycopg import errors

from .roles_database import connect_as, migration_window, roles_database

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.fixture(scope="module")
def guarded_db(django_db_setup, django_db_blocker):
    with roles_database("guard") as db, connect_as(db, "casino_owner") as owner:
        owner.execute(
            "INSERT INTO ledger_event (position, stream, version, type, schema_version, data, occurred_at,"
            " recorded_at, gaming_day, actor, correlation_id, causation_id, prev_hash, hash)"
            " VALUES (1, 'cage', 1, 'CageOpened', 1, '{}', now(), now(), current_date, 'tester', '', '',"
            " repeat('0', 64), repeat('a', 64))"
        )
        yield db


ATTACKS = {
    "disable the triggers": "ALTER TABLE ledger_posting DISABLE TRIGGER USER",
    "disable one trigger": "ALTER TABLE ledger_event DISABLE TRIGGER ledger_event_no_change",
    "replica-only trigger": "ALTER TABLE ledger_event ENABLE REPLICA TRIGGER ledger_event_no_change",
    "drop the function": "DROP FUNCTION ledger_reject_change() CASCADE",
    "drop a trigger": "DROP TRIGGER ledger_posting_no_change ON ledger_posting",
    "drop the balance check": "DROP TRIGGER ledger_event_balanced ON ledger_event",
    "replace the function": (
        "CREATE OR REPLACE FUNCTION ledger_reject_change() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN RETURN NEW; END $$"
    ),
    "replace a trigger": (
        "CREATE OR REPLACE TRIGGER ledger_posting_no_change BEFORE INSERT ON ledger_posting"
        " FOR EACH ROW EXECUTE FUNCTION ledger_reject_change()"
    ),
    "grant UPDATE to the application": "GRANT UPDATE ON ledger_posting TO casino_app",
    "grant a column": "GRANT UPDATE (amount_cents) ON ledger_posting TO casino_app",
    "grant DELETE to everyone": "GRANT DELETE ON ledger_event TO PUBLIC",
    "rename the table away": "ALTER TABLE ledger_event RENAME TO ledger_event_old",
    "rename the schema away": "ALTER SCHEMA public RENAME TO old_public",
    "rewrite the rows": "ALTER TABLE ledger_posting ALTER COLUMN amount_cents TYPE numeric USING amount_cents + 1",
    "drop the table": "DROP TABLE ledger_idempotencyrecord",
    "drop the guard": "DROP EVENT TRIGGER casino_guard_after_ddl",
    "switch the guard off": "ALTER EVENT TRIGGER casino_guard_on_drop DISABLE",
    "drop the guard's schema": "DROP SCHEMA casino_guard CASCADE",
    # The auditor's withholding of cards in play: row security and its policy stay, and no role
    # that deals nothing is given a shoe's undealt cards.
    "switch off the auditor's row security": "ALTER TABLE ledger_event DISABLE ROW LEVEL SECURITY",
    "drop the auditor's policy": "DROP POLICY casino_auditor_coups_in_play ON ledger_event",
    "drop the auditor's policy on the audit trail": "DROP POLICY casino_auditor_coups_in_play ON ledger_auditentry",
    "give the auditor a shoe's order": 'GRANT SELECT ("order") ON games_shoe TO casino_auditor',
    "give everyone the cards drawn": "GRANT SELECT (drawn) ON games_shoe TO PUBLIC",
    "rename a shoe's order, to grant it under another name": 'ALTER TABLE games_shoe RENAME COLUMN "order" TO ord',
    # The auditor's role by name, whatever else it holds: UPDATE beside a shoe's order does not
    # make it a dealer, it writes nothing, and reads no stored command answer (a hole card once).
    "give the auditor a shoe whole, with UPDATE": "GRANT SELECT, UPDATE ON games_shoe TO casino_auditor",
    "let the auditor write a table": "GRANT INSERT ON cashier_cage TO casino_auditor",
    "give the auditor the stored answers": "GRANT SELECT (result) ON ledger_idempotencyrecord TO casino_auditor",
    "give the auditor the stored answers whole": "GRANT SELECT ON ledger_idempotencyrecord TO casino_auditor",
    # The ledger's tables change only in a migration, even where no row is rewritten.
    "retype a column in place": "ALTER TABLE ledger_event ALTER COLUMN actor TYPE text",
    "a check that stops the appends": "ALTER TABLE ledger_event ADD CONSTRAINT stop CHECK (position < 2) NOT VALID",
    "a default on a hashed column": "ALTER TABLE ledger_posting ALTER COLUMN currency SET DEFAULT 'XXX'",
    # A publication sends the rows (hole cards of coups in play among them) to any subscriber.
    "publish the ledger": "CREATE PUBLICATION leak FOR TABLE ledger_event, games_shoe",
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_the_owner_role_cannot_lift_the_append_only_lock(guarded_db, attack):
    with connect_as(guarded_db, "casino_owner") as owner:
        with pytest.raises(errors.InsufficientPrivilege) as refused:
            owner.execute(ATTACKS[attack])
        assert any(
            words in str(refused.value)
            for words in (
                "append-only",
                "must be owner",
                "only in a migration",
                "privileges change only",
                "superuser's",
            )
        )
        # The lock is whole: the owner's own UPDATE still meets the trigger.
        with pytest.raises(errors.RestrictViolation, match="ledger is append-only"):
            owner.execute("UPDATE ledger_event SET actor = 'tampered'")
        with pytest.raises(errors.RestrictViolation, match="ledger is append-only"):
            owner.execute("DELETE FROM ledger_event")
        assert owner.execute("SELECT has_table_privilege('casino_app', 'ledger_posting', 'UPDATE')").fetchone() == (
            False,
        )


def test_the_owner_role_still_runs_ordinary_migrations(guarded_db):
    """An index at any time; a new table inside the migration window deploy/migrate opens."""
    with connect_as(guarded_db, "casino_owner") as owner:
        owner.execute("CREATE INDEX ledger_event_actor_probe ON ledger_event (actor)")
        owner.execute("DROP INDEX ledger_event_actor_probe")
    with migration_window(guarded_db), connect_as(guarded_db, "casino_owner") as owner:
        owner.execute("CREATE TABLE public.probe_table (id int)")
        owner.execute("GRANT SELECT, INSERT ON public.probe_table TO casino_app")
        owner.execute("DROP TABLE public.probe_table")


def test_the_role_script_fails_where_the_guard_is_missing(guarded_db):
    """Run as the owner after a superuser removed the guard: the script's check refuses."""
    where = ["-h", guarded_db["host"], "-p", str(guarded_db["port"])]
    with connect_as(guarded_db, guarded_db["user"]) as superuser:
        superuser.execute("ALTER EVENT TRIGGER casino_guard_on_drop DISABLE")
    try:
        done = subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", *where, "-U", "casino_owner", "-d", guarded_db["dbname"],
             "-f", "deploy/postgres_roles.sql"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode != 0
        assert "casino_guard event triggers are missing" in done.stderr
    finally:
        with connect_as(guarded_db, guarded_db["user"]) as superuser:
            superuser.execute("ALTER EVENT TRIGGER casino_guard_on_drop ENABLE")
