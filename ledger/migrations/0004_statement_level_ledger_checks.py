"""PostgreSQL: the two insert checks of migration 0002 run once per statement, not per row.

Same rules — an event's postings sum to zero per currency, and no posting may be added to an
event already written — checked over the statement's transition table (``new_rows``): one
lookup for a coup of 50 events or a settlement of 30,000 bets instead of one a row (the row
triggers were a tenth of a coup's append). The ids go through an array and the
functions run with ``enable_seqscan = off`` so that the lookups use the indexes whatever the
planner guessed: it cannot estimate a transition table (a join with ``new_rows`` scanned the
ledger, 100 ms a coup), and a session caches the plan it made when the ledger was small (a
fresh benchmark database reached 6 ms an event once the ledger had grown). SQLite keeps its
row triggers.
"""

from django.db import migrations

FORWARD = [
    "DROP TRIGGER ledger_event_balanced ON ledger_event;",
    "DROP TRIGGER ledger_posting_before_event ON ledger_posting;",
    """
    CREATE OR REPLACE FUNCTION ledger_check_balanced_rows() RETURNS trigger LANGUAGE plpgsql
    SET enable_seqscan = off AS $$
    DECLARE unbalanced bigint; ids bigint[];
    BEGIN
        SELECT array_agg(position) INTO ids FROM new_rows;
        SELECT p.event_id INTO unbalanced FROM ledger_posting p WHERE p.event_id = ANY(ids)
            GROUP BY p.event_id, p.currency HAVING SUM(p.amount_cents) <> 0 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'postings of event % do not sum to zero per currency', unbalanced
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION ledger_postings_of_new_events() RETURNS trigger LANGUAGE plpgsql
    SET enable_seqscan = off AS $$
    DECLARE written bigint; ids bigint[];
    BEGIN
        SELECT array_agg(DISTINCT event_id) INTO ids FROM new_rows;
        SELECT e.position INTO written FROM ledger_event e WHERE e.position = ANY(ids) LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'event % is already written: postings cannot be added to it', written
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NULL;
    END $$;
    """,
    "CREATE TRIGGER ledger_event_balanced AFTER INSERT ON ledger_event REFERENCING NEW TABLE AS new_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION ledger_check_balanced_rows();",
    "CREATE TRIGGER ledger_posting_of_new_event AFTER INSERT ON ledger_posting REFERENCING NEW TABLE AS new_rows "
    "FOR EACH STATEMENT EXECUTE FUNCTION ledger_postings_of_new_events();",
]
BACKWARD = [
    "DROP TRIGGER ledger_event_balanced ON ledger_event;",
    "DROP TRIGGER ledger_posting_of_new_event ON ledger_posting;",
    "CREATE TRIGGER ledger_event_balanced AFTER INSERT ON ledger_event "
    "FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();",
    "CREATE TRIGGER ledger_posting_before_event BEFORE INSERT ON ledger_posting "
    "FOR EACH ROW EXECUTE FUNCTION ledger_posting_before_event();",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, params=None)  # no placeholders: RAISE uses literal %

    return run


class Migration(migrations.Migration):
    dependencies = [("ledger", "0003_projections")]
    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
