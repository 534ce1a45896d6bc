"""Placing a bet, the hot path (core/rawsql.py, games/selectors.py ``bet_placement_reads``,
``store.append(also=...)``, staff/sessions.py, staff/backends.py): concurrent placements never
spend more than the patron holds nor pass a table maximum; a placement that fails half-way
(an announced bet too) writes nothing and the next goes through; idempotent retries place once;
a coup out of betting or a stale version writes nothing; colour chips come from this table's
only; odd patron codes and round ids are a 400 or 404; a role taken away counts on the next
request; prepared reads survive rollbacks, a dropped connection and a schema change made by
another connection (a migration while the web processes keep their ``CONN_MAX_AGE``
connections)."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.db import DatabaseError, connection, transaction
from django.test import Client

from games.models import Bet, Round
from games.services import bets as bets_service
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import accounts, store
from ledger.errors import (
    IdempotencyKeyReused,
    InsufficientChips,
    InvalidInput,
    NotFound,
    SchemaChanged,
    StateConflict,
    VersionConflict,
)
from ledger.models import Event, Posting
from ledger.verify import verify_chain
from patrons.selectors import patron_chips_cents
from staff.backends import StaffBackend
from staff.roles import roles_of
from staff.sessions import SessionStore, stored_key
from tests.conftest import ACTOR, make_patron, set_self_limit, staff_user
from tests.integration.concurrency import run_concurrently

PLEIN_17 = {"type": "plein", "numbers": [17]}
ROUGE = {"type": "chance_simple", "chance": "rouge"}
TIERS = {"name": "tiers_du_cylindre"}

postgres_only = pytest.mark.skipif(
    "postgresql" not in __import__("django.conf").conf.settings.DATABASES["default"]["ENGINE"],
    reason="PostgreSQL: prepared statements, real concurrent commits",
)


def _stream(coup: str) -> str:
    return f"round/{coup}"


def _snapshot(coup: str, patron: str) -> dict:
    """Everything a bet placement writes, to check that a failed one wrote none of it."""
    return {
        "events": Event.objects.count(),
        "postings": Posting.objects.count(),
        "round_events": Event.objects.filter(stream=_stream(coup)).count(),
        "bets": Bet.objects.filter(round_id=coup).count(),
        "version": Round.objects.get(pk=coup).version,
        "chips": patron_chips_cents(patron),
    }


def _consistent(coup: str) -> None:
    """The round's version is its stream's; each bet row has its BetPlaced event and postings."""
    stored = Round.objects.get(pk=coup)
    assert stored.version == store.stream_version(_stream(coup))
    placed = {e.data["bet"]: e for e in Event.objects.filter(stream=_stream(coup), type="BetPlaced")}
    rows = {str(b.id): b for b in Bet.objects.filter(round_id=coup)}
    assert set(placed) == set(rows)
    for key, row in rows.items():
        assert placed[key].data["stake_cents"] == row.stake_cents
        assert placed[key].data["position"] == row.position
        assert Posting.objects.filter(event_id=placed[key].position).count() == 2
    result = verify_chain()
    assert result.ok, result


# --- concurrency (real commits, PostgreSQL) ---------------------------------------------------


@postgres_only
def test_concurrent_bets_of_one_patron_on_one_coup_never_spend_more_than_he_holds(committed_db, table, patron):
    """1,000 EUR of chips, four bets of 400 EUR at once on four even chances: two go through."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    chances = ["rouge", "noir", "pair", "impair"]
    calls = [
        (
            lambda c=c: bet_place(
                round_id=coup,
                patron=patron,
                stake_cents=40_000,
                actor=ACTOR,
                bet={"type": "chance_simple", "chance": c},
            )
        )  # fmt: skip
        for c in chances
    ]
    outcomes = run_concurrently(*calls)
    won = [o for o in outcomes if isinstance(o, dict)]
    lost = [o for o in outcomes if not isinstance(o, dict)]
    assert len(won) == 2, outcomes
    assert all(isinstance(o, InsufficientChips) for o in lost), outcomes
    assert patron_chips_cents(patron) == 20_000
    assert sorted(r["version"] for r in won) == [2, 3]  # RoundOpened is 1
    _consistent(coup)


@postgres_only
def test_concurrent_bets_on_one_position_never_pass_the_table_maximum(committed_db, colour_patron):
    """Plein maximum 100 EUR; three colour bets of 40 EUR on 17 at once: the third is refused."""
    patron = colour_patron
    coup = round_open(table="R1", actor=ACTOR)["round"]
    colour = accounts.patron_colour(patron, "R1")
    outcomes = run_concurrently(
        *[lambda: bet_place(round_id=coup, patron=patron, stake_cents=4_000, bet=PLEIN_17, chips="colour", actor=ACTOR)]
        * 3  # fmt: skip
    )
    won = [o for o in outcomes if isinstance(o, dict)]
    assert len(won) == 2, outcomes
    assert [type(o).__name__ for o in outcomes if not isinstance(o, dict)] == ["BetRefused"]
    assert sum(Bet.objects.filter(round_id=coup).values_list("stake_cents", flat=True)) == 8_000
    assert store.balance(colour) == 20_000 - 8_000 and patron_chips_cents(patron) == 80_000
    _consistent(coup)


@postgres_only
def test_a_bet_racing_rien_ne_va_plus_is_either_before_it_or_refused(committed_db, table, patron):
    for _ in range(3):
        coup = round_open(table="R1", actor=ACTOR)["round"]
        before = patron_chips_cents(patron)
        bet, close = run_concurrently(
            lambda coup=coup: bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR),
            lambda coup=coup: round_close_bets(round_id=coup, actor=ACTOR),
        )
        assert isinstance(close, dict), close
        stored = Round.objects.get(pk=coup)
        assert stored.state == Round.State.CLOSED_FOR_BETS
        types = list(Event.objects.filter(stream=_stream(coup)).order_by("version").values_list("type", flat=True))
        if isinstance(bet, dict):
            assert types == ["RoundOpened", "BetPlaced", "BettingClosed"]
            assert patron_chips_cents(patron) == before - 1_000
        else:
            assert isinstance(bet, StateConflict), bet
            assert types == ["RoundOpened", "BettingClosed"]
            assert patron_chips_cents(patron) == before
        _consistent(coup)
        round_record_result(round_id=coup, number=0, actor=ACTOR)


@postgres_only
def test_concurrent_retries_of_an_announced_bet_with_one_key_place_it_once(committed_db, colour_patron):
    """Tiers du cylindre in colour chips (6 events: the COPY path) sent three times at once."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    key = f"announced-{uuid.uuid4()}"
    colour = accounts.patron_colour(colour_patron, "R1")
    held = store.balance(colour)

    def place():
        return bet_place(round_id=coup, patron=colour_patron, stake_cents=200, announce=TIERS, chips="colour",
                         actor=ACTOR, idempotency_key=key)  # fmt: skip

    outcomes = run_concurrently(place, place, place)
    assert all(isinstance(o, dict) for o in outcomes), outcomes
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert len(outcomes[0]["bets"]) == 6 and outcomes[0]["total_cents"] == 1_200
    assert Bet.objects.filter(round_id=coup).count() == 6
    assert store.balance(colour) == held - 1_200
    assert Event.objects.filter(idempotency_key__endswith=f" bet:{coup}:{key}").count() == 1  # scoped to its coup
    _consistent(coup)


# --- failures half-way, retries, coups out of betting (both backends) --------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("announced", [False, True], ids=["one-event", "announced-copy"])
def test_a_failing_also_statement_writes_nothing_and_the_next_bet_goes_through(announced, colour_patron, monkeypatch):
    """The round's version update refused by the database (a negative version breaks the
    column's CHECK): no event, posting, bet row or chip moves; the connection goes on."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    kwargs = dict(announce=TIERS) if announced else dict(bet=PLEIN_17)
    colour = accounts.patron_colour(colour_patron, "R1")
    before = _snapshot(coup, colour_patron) | {"colour": store.balance(colour)}
    real_update = bets_service.rawsql.update

    def broken_update(obj, names):
        sql, params = real_update(obj, names)
        return sql, [-5, *params[1:]]

    monkeypatch.setattr(bets_service.rawsql, "update", broken_update)
    with pytest.raises(DatabaseError):
        bet_place(round_id=coup, patron=colour_patron, stake_cents=200, chips="colour", actor=ACTOR, **kwargs)
    assert _snapshot(coup, colour_patron) | {"colour": store.balance(colour)} == before
    monkeypatch.setattr(bets_service.rawsql, "update", real_update)
    placed = bet_place(round_id=coup, patron=colour_patron, stake_cents=200, chips="colour", actor=ACTOR, **kwargs)
    expected_bets = 6 if announced else 1
    assert len(placed["bets"]) == expected_bets
    assert placed["version"] == 1 + expected_bets
    assert store.balance(colour) == before["colour"] - 200 * expected_bets
    assert patron_chips_cents(colour_patron) == before["chips"]
    _consistent(coup)


@pytest.mark.django_db
def test_an_idempotent_retry_replays_and_a_reused_key_is_refused(colour_patron):
    patron = colour_patron
    colour = accounts.patron_colour(patron, "R1")
    coup = round_open(table="R1", actor=ACTOR)["round"]
    voisins = dict(
        stake_cents=200, announce={"name": "voisins", "number": 17}, chips="colour", actor=ACTOR, idempotency_key="k"
    )
    first = bet_place(round_id=coup, patron=patron, **voisins)
    again = bet_place(round_id=coup, patron=patron, **voisins)
    assert again == first and len(first["bets"]) > 2
    assert Bet.objects.filter(round_id=coup).count() == len(first["bets"])
    assert store.balance(colour) == 20_000 - first["total_cents"]
    with pytest.raises(IdempotencyKeyReused):
        bet_place(round_id=coup, patron=patron, stake_cents=200, bet=PLEIN_17, chips="colour", actor=ACTOR,
                  idempotency_key="k")  # fmt: skip
    # the replay still answers once the coup is closed (it is the first answer, not a new bet)
    round_close_bets(round_id=coup, actor=ACTOR)
    assert bet_place(round_id=coup, patron=patron, **voisins) == first
    assert store.balance(colour) == 20_000 - first["total_cents"]
    _consistent(coup)


@pytest.mark.django_db
def test_a_bet_on_a_coup_out_of_betting_or_at_a_stale_version_writes_nothing(colour_patron):
    patron = colour_patron
    colour = dict(chips="colour", announce=TIERS)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    before = _snapshot(coup, patron)
    with pytest.raises(VersionConflict):
        bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR, expected_version=1)
    with pytest.raises(VersionConflict):
        bet_place(round_id=coup, patron=patron, stake_cents=200, actor=ACTOR, expected_version=7, **colour)
    assert _snapshot(coup, patron) == before
    assert bet_place(round_id=coup, patron=patron, stake_cents=200, actor=ACTOR, expected_version=2,
                     **colour)["version"] == 8  # fmt: skip
    round_close_bets(round_id=coup, actor=ACTOR)
    before = _snapshot(coup, patron)
    with pytest.raises(StateConflict):
        bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    with pytest.raises(StateConflict):
        bet_place(round_id=coup, patron=patron, stake_cents=200, actor=ACTOR, **colour)
    round_record_result(round_id=coup, number=17, actor=ACTOR)
    with pytest.raises(StateConflict):
        bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    assert Bet.objects.filter(round_id=coup).count() == before["bets"] == 7
    _consistent(coup)


@pytest.mark.django_db
def test_colour_chip_bets_come_from_his_colour_chips_at_this_table_only(colour_patron):
    """100 red chips of 2 EUR (200 EUR) and 800 EUR of value chips."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    colour = accounts.patron_colour(colour_patron, "R1")
    assert store.balance(colour) == 20_000
    with pytest.raises(InvalidInput) as exc:
        bet_place(round_id=coup, patron=colour_patron, stake_cents=300, bet=PLEIN_17, chips="colour", actor=ACTOR)
    assert exc.value.field == "stake_cents"
    bet_place(round_id=coup, patron=colour_patron, stake_cents=8_000, bet=PLEIN_17, chips="colour", actor=ACTOR)
    # the per-position maximum (100 EUR) counts what he already has on 17
    with pytest.raises(InvalidInput) as exc:
        bet_place(round_id=coup, patron=colour_patron, stake_cents=2_200, bet=PLEIN_17, chips="colour", actor=ACTOR)
    assert exc.value.field == "stake_cents"
    bet_place(round_id=coup, patron=colour_patron, stake_cents=2_000, bet=PLEIN_17, chips="colour", actor=ACTOR)
    bet_place(round_id=coup, patron=colour_patron, stake_cents=10_000, bet={"type": "plein", "numbers": [18]},
              chips="colour", actor=ACTOR)  # fmt: skip
    assert store.balance(colour) == 0 and patron_chips_cents(colour_patron) == 80_000
    with pytest.raises(InsufficientChips):
        bet_place(round_id=coup, patron=colour_patron, stake_cents=200, bet={"type": "plein", "numbers": [19]},
                  chips="colour", actor=ACTOR)  # fmt: skip
    bet_place(round_id=coup, patron=colour_patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)  # value chips still his
    assert patron_chips_cents(colour_patron) == 79_000
    other = make_patron(10_000)
    with pytest.raises(InvalidInput) as exc:
        bet_place(round_id=coup, patron=other, stake_cents=200, bet=PLEIN_17, chips="colour", actor=ACTOR)
    assert exc.value.field == "chips"
    _consistent(coup)


@pytest.mark.django_db
def test_the_self_limit_caps_the_total_of_an_announced_bet(colour_patron):
    patron = colour_patron
    set_self_limit(patron, 1_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    before = _snapshot(coup, patron)
    with pytest.raises(InvalidInput) as exc:  # tiers: 6 chips of 2 EUR = 12 EUR > 10 EUR
        bet_place(round_id=coup, patron=patron, stake_cents=200, announce=TIERS, chips="colour", actor=ACTOR)
    assert exc.value.field == "stake_cents" and "own limit" in exc.value.message
    assert _snapshot(coup, patron) == before
    assert bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)["total_cents"] == 1_000
    with pytest.raises(InvalidInput):
        bet_place(round_id=coup, patron=patron, stake_cents=1_200, bet=ROUGE, actor=ACTOR)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "code",
    ["P\x00", "P00001\x00", "P00001\u200b", "\ufeffP00001", "p00001", "P00001 "],
)
def test_an_odd_patron_code_given_to_the_service_is_no_patron_on_every_backend(code, table, patron):
    """The service (not only the API's serializer) answers "no patron" (400); the connection goes on."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    with pytest.raises(InvalidInput) as exc:
        bet_place(round_id=coup, patron=code, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    assert exc.value.field == "patron"
    assert bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)["version"] == 2


@pytest.mark.django_db
@pytest.mark.parametrize("odd", ["P00001\u0000", "P00001\u200b", "p00001", "P0000\U0001d7cf", "x" * 21])
def test_an_odd_patron_code_through_the_api_is_a_400(api, table, patron, odd):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    response = api.post(f"/api/rounds/{coup}/bets", {"patron": odd, "stake_cents": 1_000, "bet": ROUGE}, format="json")
    assert response.status_code == 400, response.content
    assert Bet.objects.filter(round_id=coup).count() == 0


@pytest.mark.django_db
def test_a_round_id_in_an_odd_form_is_a_400_or_404_and_in_capitals_finds_the_coup(api, table, patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    body = {"patron": patron, "stake_cents": 1_000, "bet": ROUGE}
    for odd in ("not-a-round", str(uuid.uuid4()), f"{coup}%00", "%00", coup[:-1] + "\u0661"):
        response = api.post(f"/api/rounds/{odd}/bets", body, format="json")
        assert response.status_code in (400, 404), (odd, response.status_code, response.content)
    response = api.post(f"/api/rounds/{coup.upper()}/bets", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["round"] == coup
    with pytest.raises(NotFound):
        bet_place(round_id="\x00" + coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    _consistent(coup)


# --- a session's bets and roles ----------------------------------------------------------------------


def _session_client(user) -> Client:
    client = Client()
    client.force_login(user, backend="staff.backends.StaffBackend")
    return client


@pytest.mark.django_db
def test_a_session_client_places_bets_between_refusals_and_loses_its_role_at_once(table, patron):
    """Refused bets roll back (which drops psycopg's prepared statements); the session and user
    reads that follow must still work, and a role taken away counts on the very next request."""
    pit = staff_user("pit_placing", "pit_boss")
    client = _session_client(pit)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    url = f"/api/rounds/{coup}/bets"
    statuses = []
    for stake in (1_000, 999_999_999, 1_000, 1, 1_000):
        statuses.append(client.post(url, {"patron": patron, "stake_cents": stake, "bet": ROUGE},
                                    content_type="application/json").status_code)  # fmt: skip
    assert statuses == [201, 400, 201, 400, 201]
    assert client.get("/api/tables/").status_code == 200
    pit.groups.clear()
    assert client.post(url, {"patron": patron, "stake_cents": 1_000, "bet": ROUGE},
                       content_type="application/json").status_code == 403  # fmt: skip
    pit.groups.add(Group.objects.get(name="pit_boss"))
    assert client.get("/api/tables/").status_code == 200
    pit.is_active = False
    pit.save()
    assert client.get("/api/tables/").status_code in (401, 403)
    assert Bet.objects.filter(round_id=coup).count() == 3
    _consistent(coup)


# --- prepared statements and schema changes by another connection (PostgreSQL) ----------------


def _other_connection() -> psycopg.Connection:
    """A second connection to the test database (a deploy's ``migrate``, say)."""
    return psycopg.connect(**connection.get_connection_params(), autocommit=True)


def _alter(sql: str) -> None:
    with _other_connection() as other:
        other.execute(sql)


@pytest.fixture
def prepares(committed_db):
    """psycopg prepares on this connection as ``fetch_prepared`` means it to (Django opens its
    connections with ``prepare_threshold=None``, which disables prepares, ``prepare=True``
    included, unless OPTIONS sets one, as casino/settings.py now does)."""
    connection.ensure_connection()
    raw = connection.connection
    before, raw.prepare_threshold = raw.prepare_threshold, raw.prepare_threshold or 5
    yield
    raw.prepare_threshold = before


def _prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


@postgres_only
def test_a_bet_placement_leaves_its_reads_prepared_on_the_connection(committed_db, table, patron):
    """Django opens its connections with prepare_threshold=None, under which psycopg ignores
    ``prepare=True``; casino/settings.py sets a threshold, so the placement's reads are prepared."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    assert any("FOR UPDATE OF r" in sql for sql in _prepared_statements())


@postgres_only
def test_a_bet_after_a_migration_changed_a_column_type_is_a_409_to_retry_and_the_retry_goes_through(
    prepares, table, patron
):
    """A prepared bet_placement_reads outliving a column type change made by another connection
    (AlterField max_length) fails inside the command's transaction: "retry" (409), nothing
    written; the rollback forgets the connection's prepared statements, so the retry runs."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)  # prepares the reads
    events = Event.objects.count()
    _alter("ALTER TABLE cashier_patron ALTER COLUMN name TYPE varchar(201)")
    try:
        with pytest.raises(SchemaChanged) as exc:
            bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
        assert exc.value.status == 409
        assert Event.objects.count() == events
        placed = bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    finally:
        _alter("ALTER TABLE cashier_patron ALTER COLUMN name TYPE varchar(200)")
    assert placed["version"] == 3


@postgres_only
def test_a_bet_after_a_migration_added_a_column_goes_through(prepares, table, patron):
    """Adding a column (the common migration) leaves the prepared statement's result alone."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    _alter("ALTER TABLE cashier_patron ADD COLUMN extra_column integer NULL")
    try:
        assert bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)["version"] == 3
    finally:
        _alter("ALTER TABLE cashier_patron DROP COLUMN extra_column")
    assert bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)["version"] == 4


@postgres_only
def test_login_reads_after_a_migration_changed_a_user_column_type_still_work(prepares):
    user = staff_user("pit_login", "pit_boss")
    assert roles_of(StaffBackend().get_user(user.pk)) == {"pit_boss"}  # prepares the read
    _alter("ALTER TABLE auth_user ALTER COLUMN first_name TYPE varchar(151)")
    try:
        outcomes = []
        for _ in range(2):  # a second request on the same (CONN_MAX_AGE) connection
            try:
                outcomes.append(roles_of(StaffBackend().get_user(user.pk)))
            except DatabaseError as exc:
                outcomes.append(type(exc).__name__)
    finally:
        _alter("ALTER TABLE auth_user ALTER COLUMN first_name TYPE varchar(150)")
    assert outcomes == [{"pit_boss"}, {"pit_boss"}]


@postgres_only
def test_session_reads_after_a_migration_changed_a_session_column_type_still_work(prepares):
    client = _session_client(staff_user("pit_session", "pit_boss"))
    key = client.cookies["sessionid"].value
    assert SessionStore(key).load().get("_auth_user_id")  # prepares the read
    _alter("ALTER TABLE django_session ALTER COLUMN session_key TYPE varchar(41)")
    try:
        outcomes = []
        for _ in range(2):
            try:
                outcomes.append(bool(SessionStore(key).load().get("_auth_user_id")))
            except DatabaseError as exc:
                outcomes.append(type(exc).__name__)
    finally:
        _alter("ALTER TABLE django_session ALTER COLUMN session_key TYPE varchar(40)")
    assert outcomes == [True, True]


@postgres_only
@pytest.mark.django_db
def test_prepared_reads_survive_rollbacks_and_savepoints_in_one_transaction(table, patron):
    """Refusals and failing savepoints between bets in one connection: psycopg drops its prepared
    statements on each ROLLBACK; the next placement prepares again and reads the right state."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    for _ in range(4):
        bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
        with pytest.raises(InsufficientChips):
            bet_place(round_id=coup, patron=patron, stake_cents=100_000, bet={"type": "chance_simple",
                      "chance": "noir"}, actor=ACTOR)  # fmt: skip
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT 1/0")
        except DatabaseError:
            pass
    assert patron_chips_cents(patron) == 96_000
    # the per-position maximum still sees every earlier bet after the cache was dropped
    assert Bet.objects.filter(round_id=coup).count() == 4
    _consistent(coup)


def _kill_this_connection() -> None:
    """The server ends this process's connection (a PostgreSQL restart, an idle timeout)."""
    pid = connection.connection.info.backend_pid
    with _other_connection() as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


@postgres_only
def test_the_first_read_of_a_request_on_a_dropped_persistent_connection_reconnects(committed_db):
    client = _session_client(staff_user("pit_dropped", "pit_boss"))
    key = client.cookies["sessionid"].value
    # control: what Django does for an ORM read at the start of a request (CONN_HEALTH_CHECKS)
    connection.close_if_unusable_or_obsolete()  # request_started
    _kill_this_connection()
    assert Session.objects.filter(pk=stored_key(key)).exists()
    # the session engine's read, the first query of the next request
    connection.close_if_unusable_or_obsolete()
    _kill_this_connection()
    try:
        loaded = SessionStore(key).load()
    finally:
        connection.close()  # whatever happened, the next test gets a fresh connection
    assert loaded.get("_auth_user_id")
