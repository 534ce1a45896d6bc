"""The owner role reshapes the append-only ledger tables without lifting their triggers.

deploy/postgres_roles.sql's event triggers (casino_guard) refuse disabling, dropping or
replacing the append-only triggers, granting write privileges and rewriting the tables; a
hostile pass found DDL they let through as ``casino_owner`` once the ledger
holds an event, each of which loses or falsifies ledger data without an UPDATE or DELETE
(now refused by ``casino_guard.lock_broken``):

- ``ALTER TABLE ledger_event DROP COLUMN actor``: every event's actor is gone (not a rewrite,
  so the table_rewrite guard does not fire; sql_drop reports a ``table column``);
- ``ALTER TABLE ledger_posting RENAME COLUMN amount_cents …`` then ``ADD COLUMN amount_cents
  bigint NOT NULL DEFAULT 0`` (a constant default rewrites nothing): every amount reads 0;
- ``CREATE RULE … ON INSERT TO ledger_event DO INSTEAD NOTHING``: new events vanish silently;
- ``CREATE TRIGGER … BEFORE INSERT ON ledger_posting`` with a function that rewrites NEW;
- ``ENABLE ROW LEVEL SECURITY`` with a policy: the application role no longer sees the tail;
- a child table ``INHERIT ledger_posting``: its rows read as postings and can be deleted;
- a dropped ``seal`` column, or a dropped constraint (the position CHECK, the stream-version
  UNIQUE, a key, the postings' foreign key): rows the application never writes get in.

Each attack runs in a transaction rolled back afterwards, so one that passes leaves the copy
as it was for the next.
"""

import pytest
from psycopg import errors

from tests.integration.roles_database import connect_as, migration_window
from tests.integration.test_owner_role_cannot_lift_ledger_lock import guarded_db  # noqa: F401

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

ATTACKS = {
    "drop_column": ["ALTER TABLE ledger_event DROP COLUMN actor"],
    "rename_column_and_default": [
        "ALTER TABLE ledger_posting RENAME COLUMN amount_cents TO amount_kept",
        "ALTER TABLE ledger_posting ADD COLUMN amount_cents bigint NOT NULL DEFAULT 0",
    ],
    "insert_rule": ["CREATE RULE swallow AS ON INSERT TO ledger_event DO INSTEAD NOTHING"],
    "rewriting_trigger": [
        "CREATE FUNCTION posting_skim() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN NEW.amount_cents := NEW.amount_cents - 1; RETURN NEW; END $$",
        "CREATE TRIGGER posting_skim BEFORE INSERT ON ledger_posting FOR EACH ROW EXECUTE FUNCTION posting_skim()",
    ],
    "inheriting_child": [
        "CREATE TABLE posting_extra (LIKE ledger_posting INCLUDING CONSTRAINTS INCLUDING DEFAULTS)",
        "ALTER TABLE posting_extra INHERIT ledger_posting",
    ],
    "drop_seal_column": ["ALTER TABLE ledger_event DROP COLUMN seal"],
    "row_security": [
        "ALTER TABLE ledger_event ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY hide_tail ON ledger_event FOR SELECT USING (position < 1)",
    ],
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_owner_role_is_refused_ddl_that_reshapes_the_ledger(guarded_db, attack):  # noqa: F811
    """Even inside the migration window (new tables and functions allowed), the lock holds."""
    with migration_window(guarded_db), connect_as(guarded_db, "casino_owner") as owner:
        with pytest.raises(errors.InsufficientPrivilege, match="append-only"):
            with owner.transaction(force_rollback=True):
                for statement in ATTACKS[attack]:
                    owner.execute(statement)


# Outside the migration window only: deploy/restore's pg_restore adds the constraints after the
# rows, inside the window a superuser opened.
CONSTRAINT_ATTACKS = {
    "drop_position_check": ["ALTER TABLE ledger_event DROP CONSTRAINT ledger_event_position_positive"],
    "drop_stream_version_unique": ["ALTER TABLE ledger_event DROP CONSTRAINT ledger_event_stream_version_uniq"],
    "drop_idempotency_key": ["ALTER TABLE ledger_idempotencyrecord DROP CONSTRAINT ledger_idempotencyrecord_pkey"],
    "drop_posting_foreign_key": [
        "DO $$ BEGIN EXECUTE (SELECT format('ALTER TABLE ledger_posting DROP CONSTRAINT %I', conname)"
        " FROM pg_constraint WHERE conrelid = 'ledger_posting'::regclass AND contype = 'f'); END $$"
    ],
}


@pytest.mark.parametrize("attack", sorted(CONSTRAINT_ATTACKS))
def test_owner_role_is_refused_dropping_a_ledger_constraint(guarded_db, attack):  # noqa: F811
    with connect_as(guarded_db, "casino_owner") as owner:
        with pytest.raises(errors.InsufficientPrivilege, match="its lock stays"):
            with owner.transaction(force_rollback=True):
                for statement in CONSTRAINT_ATTACKS[attack]:
                    owner.execute(statement)


def test_owner_role_still_creates_an_index_on_the_ledger(guarded_db):  # noqa: F811
    with connect_as(guarded_db, "casino_owner") as owner, owner.transaction(force_rollback=True):
        owner.execute("CREATE INDEX ledger_event_actor_probe ON ledger_event (actor)")
        assert owner.execute("SELECT count(*) FROM ledger_event").fetchone() == (1,)
