"""The ledger names itself, records its checkpoints, and its guards read schema-qualified tables.

- ``LedgerIdentity``: one row, a random ledger id, made with the ledger's first checkpoint
  (``ledger.checkpoints.identity``; not here: a row in it from the start would stop the test
  framework's flush, which the append-only triggers refuse). Checkpoints carry it: a new
  database ignores another ledger's checkpoints in a shared directory instead of failing on
  them.
- ``CheckpointRecord``: each checkpoint file written, so a file deleted or renamed is found.
- Both append-only, with the ledger's triggers (so deploy/postgres_roles.sql grants the
  application only SELECT and INSERT on them).
- PostgreSQL: the ledger's trigger functions name ``public.ledger_event`` and
  ``public.ledger_posting`` and run with ``search_path = pg_catalog, pg_temp``: a table of the
  same name in a schema earlier on the caller's search path (a ``casino_app`` schema, ahead of
  ``public`` through ``"$user"``) no longer answers for the ledger inside the balance checks.

On a database whose ledger already holds events the casino_guard event triggers refuse the
owner role to replace those functions: run this migration once as a superuser
(deploy/README.md, "Pinned schema").
"""

from django.db import migrations, models

NEW_TABLES = ("ledger_ledgeridentity", "ledger_checkpointrecord")

POSTGRES_FUNCTIONS = [
    """
    CREATE OR REPLACE FUNCTION public.ledger_reject_change() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        RAISE EXCEPTION 'ledger is append-only: % on % is not allowed', TG_OP, TG_TABLE_NAME
            USING ERRCODE = 'restrict_violation';
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION public.ledger_check_balanced_rows() RETURNS trigger LANGUAGE plpgsql
    SET enable_seqscan = off SET search_path = pg_catalog, pg_temp AS $$
    DECLARE unbalanced bigint; ids bigint[];
    BEGIN
        SELECT array_agg(position) INTO ids FROM new_rows;
        SELECT p.event_id INTO unbalanced FROM public.ledger_posting p WHERE p.event_id = ANY(ids)
            GROUP BY p.event_id, p.currency HAVING SUM(p.amount_cents) <> 0 LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'postings of event % do not sum to zero per currency', unbalanced
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NULL;
    END $$;
    """,
    """
    CREATE OR REPLACE FUNCTION public.ledger_postings_of_new_events() RETURNS trigger LANGUAGE plpgsql
    SET enable_seqscan = off SET search_path = pg_catalog, pg_temp AS $$
    DECLARE written bigint; ids bigint[];
    BEGIN
        SELECT array_agg(DISTINCT event_id) INTO ids FROM new_rows;
        SELECT e.position INTO written FROM public.ledger_event e WHERE e.position = ANY(ids) LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION 'event % is already written: postings cannot be added to it', written
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NULL;
    END $$;
    """,
]
for _table in NEW_TABLES:
    POSTGRES_FUNCTIONS += [
        f"CREATE TRIGGER {_table}_no_change BEFORE UPDATE OR DELETE ON public.{_table} "
        "FOR EACH ROW EXECUTE FUNCTION public.ledger_reject_change();",
        f"CREATE TRIGGER {_table}_no_truncate BEFORE TRUNCATE ON public.{_table} "
        "FOR EACH STATEMENT EXECUTE FUNCTION public.ledger_reject_change();",
    ]

SQLITE = [
    f"CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table} "
    f"BEGIN SELECT RAISE(ABORT, 'ledger is append-only: {op} on {table} is not allowed'); END;"
    for table in NEW_TABLES
    for op in ("UPDATE", "DELETE")
]


def guard(apps, schema_editor):
    statements = {"postgresql": POSTGRES_FUNCTIONS, "sqlite": SQLITE}.get(schema_editor.connection.vendor)
    if statements is None:
        raise RuntimeError(f"no append-only triggers for {schema_editor.connection.vendor}")
    for sql in statements:
        schema_editor.execute(sql, params=None)  # no placeholders: RAISE uses literal %


def unguard(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for table in NEW_TABLES:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_change ON public.{table}", params=None)
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON public.{table}", params=None)
    else:
        for table in NEW_TABLES:
            for op in ("update", "delete"):
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_{op}", params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0012_audit_entry_words_made_when_read")]

    operations = [
        migrations.CreateModel(
            name="CheckpointRecord",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("position", models.BigIntegerField()),
                ("hash", models.CharField(max_length=64)),
                ("file", models.CharField(max_length=300)),
                ("written_at", models.DateTimeField(help_text="UTC")),
            ],
            options={"indexes": [models.Index(fields=["position"], name="ledger_checkpointrec_pos")]},
        ),
        migrations.CreateModel(
            name="LedgerIdentity",
            fields=[
                ("one", models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False)),
                ("ledger_id", models.CharField(max_length=32)),
                ("named_at", models.DateTimeField(help_text="UTC")),
                ("head_at_naming", models.BigIntegerField(default=0)),
            ],
            options={
                "constraints": [models.CheckConstraint(condition=models.Q(("one", 1)), name="ledger_identity_single_row")]
            },
        ),
        migrations.RunPython(guard, unguard),
    ]
