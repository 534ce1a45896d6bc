"""Database-level immutability of the ledger (DESIGN.md §The ledger).

Triggers reject UPDATE, DELETE and TRUNCATE on the event, posting and idempotency tables,
reject an event whose postings (inserted just before it) do not sum to zero per currency,
and reject a posting added to an event that already exists. SQLite has no TRUNCATE: its
"DELETE FROM t" fast path is disabled by the DELETE triggers, which then refuse it.
"""

from django.db import migrations

APPEND_ONLY = ("ledger_event", "ledger_posting", "ledger_idempotencyrecord")

POSTGRES = [
    """
    CREATE OR REPLACE FUNCTION ledger_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'ledger is append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME
            USING ERRCODE = 'restrict_violation';
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM ledger_posting WHERE event_id = NEW.position
                   GROUP BY currency HAVING SUM(amount_cents) <> 0) THEN
            RAISE EXCEPTION 'postings of event % do not sum to zero per currency', NEW.position
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_posting_before_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM ledger_event WHERE position = NEW.event_id) THEN
            RAISE EXCEPTION 'event % is already written: postings cannot be added to it', NEW.event_id
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END $$;
    """,
    "CREATE TRIGGER ledger_event_balanced AFTER INSERT ON ledger_event "
    "FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();",
    "CREATE TRIGGER ledger_posting_before_event BEFORE INSERT ON ledger_posting "
    "FOR EACH ROW EXECUTE FUNCTION ledger_posting_before_event();",
]
for table in APPEND_ONLY:
    POSTGRES += [
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION ledger_reject_change();",
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();",
    ]

SQLITE = [
    """
    CREATE TRIGGER ledger_event_balanced AFTER INSERT ON ledger_event
    WHEN EXISTS (SELECT 1 FROM ledger_posting WHERE event_id = NEW.position
                 GROUP BY currency HAVING SUM(amount_cents) <> 0)
    BEGIN SELECT RAISE(ABORT, 'postings of the event do not sum to zero per currency'); END;
    """,
    """
    CREATE TRIGGER ledger_posting_before_event BEFORE INSERT ON ledger_posting
    WHEN EXISTS (SELECT 1 FROM ledger_event WHERE position = NEW.event_id)
    BEGIN SELECT RAISE(ABORT, 'event is already written: postings cannot be added to it'); END;
    """,
]
for table in APPEND_ONLY:
    for op in ("UPDATE", "DELETE"):
        SQLITE.append(
            f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, 'ledger is append-only: {op} on {table} is not allowed'); END;"
        )


def create_triggers(apps, schema_editor):
    statements = {"postgresql": POSTGRES, "sqlite": SQLITE}.get(schema_editor.connection.vendor)
    if statements is None:
        raise RuntimeError(f"no append-only triggers for {schema_editor.connection.vendor}")
    for sql in statements:
        schema_editor.execute(sql, params=None)  # no placeholders: RAISE uses literal %


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]
    operations = [migrations.RunPython(create_triggers, migrations.RunPython.noop)]
