"""A shadow ledger ahead of public on the search path: refused, not used, and reported.

PostgreSQL's default search path is ``"$user", public``: a schema named after the connecting
role comes first. The attacks, as the roles of deploy/postgres_roles.sql on a copy of the
migrated schema (tests/integration/roles_database.py):

1. the owner role makes a schema ``casino_app`` holding a trigger-free copy of ``ledger_event``,
   so the application would append to and read the copy. Refused: casino_guard's event trigger
   closes schemas to every role but a superuser, inside the migration window too. Made by a
   superuser anyway, the application still writes to public (its search path is pinned on the
   role and by the settings' connection option), ``ledger verify`` as the application fails
   naming the copy, and the role script refuses to run on;
2. a schema ``casino_auditor`` of views in front of the auditor role, showing forged events.
   ``ledger verify`` as the auditor reads public's events, not the views', and fails naming the
   view;
3. the owner role, owner of the database, sets the database's search path: the roles' own
   setting wins;
4. the owner role creates a table outside the migration window: refused;
5. the owner role unpins its own search path in its database, or sets the database's: no event
   trigger sees it, the guard reports it until the roles script pins it again.

Without the pinned search path (the connection given the old default explicitly) attacks 1 and
2 resolve ``ledger_event`` to the copy: that is the hole the pin closes.
"""

import os
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from django.conf import settings
from psycopg import errors

from ledger import signing
from ledger.event_seals import seal
from ledger.hashing import GENESIS_HASH, event_hash

from .roles_database import connect_as, migration_window, roles_database

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

AT = datetime(2026, 12, 6, 4, 0, tzinfo=UTC)
FIRST = event_hash(
    position=1, stream="cage", version=1, type="CageOpened", schema_version=1, data={}, occurred_at=AT,
    recorded_at=AT, gaming_day=date(2026, 12, 5), actor="tester", correlation_id="", causation_id="",
    idempotency_key=None, prev_hash=GENESIS_HASH, postings=[],
)  # fmt: skip
EVENT = (
    "INSERT INTO {table} (position, stream, version, type, schema_version, data, occurred_at, recorded_at,"
    " gaming_day, actor, correlation_id, causation_id, prev_hash, hash, seal)"
    " VALUES ({position}, 'cage', {position}, 'CageOpened', 1, '{{}}', '2026-12-06T04:00:00Z', '2026-12-06T04:00:00Z',"
    f" '2026-12-05', 'tester', '', '', repeat('0', 64), '{FIRST}', '{seal(FIRST)}')"
)
WHERE_IS = "SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = to_regclass(%s)"
UNPINNED = '-c search_path="$user",public'  # PostgreSQL's default, given explicitly


@pytest.fixture(scope="module")
def roles_db(django_db_setup, django_db_blocker):
    with roles_database("shadow") as db:
        yield db


def _as(db: dict, role: str, **options):
    import psycopg

    return psycopg.connect(host=db["host"], port=db["port"], dbname=db["dbname"], user=role, autocommit=True, **options)


def _manage(db: dict, role: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """``manage.py`` as ``role`` on the copy, with the project's settings (their pinned search path)."""
    key = tmp_path / "site.pem"
    if not key.exists():
        key.write_bytes(signing.new_private_key_pem())
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DATABASE_URL": f"postgres://{role}@{db['host']}:{db['port']}/{db['dbname']}",
        "LEDGER_CHECKPOINT_DIR": str(tmp_path / "checkpoints"),
        "LEDGER_SIGNING_KEY_FILE": str(key),
        "CELERY_BROKER_URL": "",
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _role_script(db: dict, role: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", db["host"], "-p", str(db["port"]), "-U", role,
         "-d", db["dbname"], "-f", "deploy/postgres_roles.sql"],
        cwd=settings.BASE_DIR, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _drop_schema(db: dict, name: str) -> None:
    with connect_as(db, db["user"]) as superuser:
        superuser.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE SCHEMA casino_app",
        "CREATE SCHEMA casino_auditor AUTHORIZATION casino_owner",
        "CREATE SCHEMA elsewhere CREATE TABLE ledger_event (position bigint)",
    ],
)
def test_the_owner_role_cannot_create_a_schema_even_while_migrating(roles_db, statement):
    with migration_window(roles_db), connect_as(roles_db, "casino_owner") as owner:
        with pytest.raises(errors.InsufficientPrivilege, match="the database's schemas are closed: CREATE SCHEMA"):
            owner.execute(statement)
    with connect_as(roles_db, roles_db["user"]) as superuser:
        assert superuser.execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname IN ('casino_app', 'casino_auditor', 'elsewhere')"
        ).fetchone() == (0,)


def test_the_owner_role_creates_no_table_outside_the_migration_window(roles_db):
    with connect_as(roles_db, "casino_owner") as owner:
        for statement in (
            "CREATE TABLE public.ledger_shadow (LIKE public.ledger_event)",
            "CREATE VIEW public.ledger_view AS SELECT * FROM public.ledger_event",
            "CREATE FUNCTION public.probe() RETURNS int LANGUAGE sql AS 'SELECT 1'",
        ):
            with pytest.raises(errors.InsufficientPrivilege, match="schema is closed outside a migration"):
                owner.execute(statement)
        owner.execute("CREATE TEMPORARY TABLE scratch (id int)")  # its own session's: allowed


def test_a_shadow_schema_for_the_application_is_not_used_and_is_reported(roles_db, tmp_path):
    """Attack 1, the schema made by a superuser (the owner role cannot): casino_app.ledger_event,
    a copy without triggers, readable and writable by the application."""
    with connect_as(roles_db, roles_db["user"]) as superuser:
        superuser.execute("CREATE SCHEMA casino_app AUTHORIZATION casino_owner")
        superuser.execute("CREATE TABLE casino_app.ledger_event (LIKE public.ledger_event INCLUDING ALL)")
        superuser.execute("ALTER TABLE casino_app.ledger_event OWNER TO casino_owner")
        superuser.execute("GRANT USAGE ON SCHEMA casino_app TO casino_app")
        superuser.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON casino_app.ledger_event TO casino_app")
    try:
        # The hole, shown: on PostgreSQL's default search path the application reaches the copy.
        with _as(roles_db, "casino_app", options=UNPINNED) as unpinned:
            assert unpinned.execute(WHERE_IS, ["ledger_event"]).fetchone() == ("casino_app",)
        # Pinned on the role: a plain connection as the application writes to public.
        with connect_as(roles_db, "casino_app") as app:
            assert app.execute("SHOW search_path").fetchone() == ("public",)
            app.execute(EVENT.format(table="ledger_event", position=1))
            # public's grants (the copy's would allow it): the append-only lock holds.
            with pytest.raises(errors.InsufficientPrivilege, match="permission denied for table ledger_event"):
                app.execute("DELETE FROM ledger_event")
            assert app.execute("SELECT count(*) FROM public.ledger_event").fetchone() == (1,)
            assert app.execute("SELECT count(*) FROM casino_app.ledger_event").fetchone() == (0,)
        # Pinned by the settings too, even with the role's setting gone.
        with connect_as(roles_db, roles_db["user"]) as superuser:
            superuser.execute("ALTER ROLE casino_app RESET search_path")
        try:
            shown = _manage(
                roles_db, "casino_app", tmp_path, "shell", "-c",
                "from django.db import connection; c = connection.cursor(); c.execute('SHOW search_path');"
                " print(c.fetchone()[0])",
            )  # fmt: skip
            assert shown.returncode == 0, shown.stderr
            assert shown.stdout.strip().splitlines()[-1] == "public"
        finally:
            with connect_as(roles_db, roles_db["user"]) as superuser:
                superuser.execute("ALTER ROLE casino_app SET search_path = public")
        # ledger verify as the application: the chain it reads (public's) is whole, the copy named.
        verified = _manage(roles_db, "casino_app", tmp_path, "ledger", "verify")
        assert verified.returncode == 1
        assert verified.stdout.startswith("ledger chain intact: 1 events, head position 1")
        assert "ledger tables UNGUARDED: table casino_app.ledger_event shadows public.ledger_event" in verified.stderr
        assert 'schema casino_app is named after a role: "$user" on a search path puts it before public' in (
            verified.stderr
        )
        # The role script refuses to carry on over it.
        script = _role_script(roles_db, "casino_owner")
        assert script.returncode != 0
        assert "casino_app.ledger_event" in script.stdout + script.stderr
        assert "a schema other than public holds a copy of an application table" in script.stderr
    finally:
        _drop_schema(roles_db, "casino_app")
        with connect_as(roles_db, roles_db["user"]) as superuser:
            superuser.execute("SET session_replication_role = replica")  # the test's event, removed
            superuser.execute("DELETE FROM public.ledger_event")
            # and the verification of it, which would otherwise witness a cut tail to the next test
            superuser.execute("DELETE FROM public.ledger_chainverification")


def test_a_schema_of_views_in_front_of_the_auditor_is_not_read_and_is_reported(roles_db, tmp_path):
    """Attack 2: casino_auditor.ledger_event, a view of forged events, for the auditor role."""
    with connect_as(roles_db, roles_db["user"]) as superuser:
        superuser.execute("CREATE SCHEMA casino_auditor")
        superuser.execute("CREATE TABLE casino_auditor.forged (LIKE public.ledger_event)")
        for position in (1, 2, 3):
            superuser.execute(EVENT.format(table="casino_auditor.forged", position=position))
        superuser.execute("CREATE VIEW casino_auditor.ledger_event AS SELECT * FROM casino_auditor.forged")
        superuser.execute("GRANT USAGE ON SCHEMA casino_auditor TO casino_auditor")
        superuser.execute("GRANT SELECT ON ALL TABLES IN SCHEMA casino_auditor TO casino_auditor")
    try:
        with _as(roles_db, "casino_auditor", options=UNPINNED) as unpinned:
            assert unpinned.execute("SELECT count(*) FROM ledger_event").fetchone() == (3,)  # the hole
            assert unpinned.execute(WHERE_IS, ["ledger_event"]).fetchone() == ("casino_auditor",)
        with connect_as(roles_db, "casino_auditor") as auditor:
            assert auditor.execute("SHOW search_path").fetchone() == ("public",)
            assert auditor.execute("SELECT count(*) FROM ledger_event").fetchone() == (0,)
        verified = _manage(roles_db, "casino_auditor", tmp_path, "ledger", "verify")
        assert verified.returncode == 1
        assert verified.stdout.startswith("ledger chain intact: 0 events")  # public's, not the 3 forged
        assert "ledger tables UNGUARDED: view casino_auditor.ledger_event shadows public.ledger_event" in (
            verified.stderr
        )
    finally:
        _drop_schema(roles_db, "casino_auditor")


def test_the_database_search_path_set_by_its_owner_does_not_reach_the_roles(roles_db):
    """Attack 3: the owner role owns the database and may set its search path; each role's wins."""
    with connect_as(roles_db, "casino_owner") as owner:
        owner.execute(f'ALTER DATABASE "{roles_db["dbname"]}" SET search_path = casino_app, public')
    try:
        for role in ("casino_app", "casino_auditor", "casino_owner"):
            with connect_as(roles_db, role) as conn:
                assert conn.execute("SHOW search_path").fetchone() == ("public",), role
    finally:
        with connect_as(roles_db, "casino_owner") as owner:
            owner.execute(f'ALTER DATABASE "{roles_db["dbname"]}" RESET search_path')


@pytest.mark.parametrize(
    ("unpin", "reported"),
    [
        (
            'ALTER ROLE casino_owner IN DATABASE "{db}" SET search_path = pg_temp, public',
            "the search path of casino_owner is no longer pinned to public",
        ),
        ('ALTER DATABASE "{db}" SET search_path = evil, public', "the database sets search_path=evil, public"),
    ],
)
def test_the_owner_unpinning_a_search_path_is_reported_by_the_guard_until_the_roles_script_pins_it_again(
    roles_db, unpin, reported
):
    """Attack 5: the owner changes its own role's setting in its database (a temporary table of
    its session would then come first) or the database's; no event trigger sees ALTER ROLE or
    ALTER DATABASE. ``casino_guard.lock_broken()`` names it, so ``ledger verify`` fails and, once
    the ledger holds an event, the owner's next change to the schema is refused, until
    deploy/migrate runs the roles script again, which resets it."""
    with connect_as(roles_db, "casino_owner") as owner:
        owner.execute(unpin.format(db=roles_db["dbname"]))
    try:
        with connect_as(roles_db, "casino_auditor") as auditor:
            (broken,) = auditor.execute("SELECT casino_guard.lock_broken()").fetchone()
        assert broken.startswith(reported)
        where = ["-h", roles_db["host"], "-p", str(roles_db["port"]), "-U", roles_db["user"], "-d", roles_db["dbname"]]
        again = subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", *where, "-f", "deploy/postgres_roles.sql"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        with connect_as(roles_db, "casino_owner") as owner:
            assert owner.execute("SHOW search_path").fetchone() == ("public",)
            assert owner.execute("SELECT casino_guard.lock_broken()").fetchone() == (None,)
    finally:
        with connect_as(roles_db, roles_db["user"]) as superuser:
            superuser.execute(f'ALTER ROLE casino_owner IN DATABASE "{roles_db["dbname"]}" RESET search_path')
            superuser.execute(f'ALTER DATABASE "{roles_db["dbname"]}" RESET search_path')


def test_verify_passes_on_the_guarded_copy(roles_db, tmp_path):
    verified = _manage(roles_db, "casino_auditor", tmp_path, "ledger", "verify")
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith("ledger chain intact: 0 events")


def test_the_auditors_replay_check_says_what_it_cannot_do_and_checks_the_balances(roles_db, tmp_path):
    """It once ended in a traceback (SELECT FOR UPDATE in a read-only transaction)."""
    checked = _manage(roles_db, "casino_auditor", tmp_path, "ledger", "replay-check")
    assert checked.returncode == 1
    assert "Traceback" not in checked.stderr
    assert "replay-check: not possible as this role" in checked.stderr
    assert "the balances, which this role can check, match the postings" in checked.stderr
