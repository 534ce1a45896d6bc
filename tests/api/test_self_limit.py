"""The patron's self-limit (RULES.md §Baccarat; sheet 002, "Limites des paris"): "Pour réduire
votre limite maximale, saisissez la nouvelle limite [...] puis validez la modification en entrant
votre code PIN [...] qu'une fois par semaine (Réinitialisation chaque vendredi à minuit heure de
l'Est, soit GMT-5)".

The week runs from Friday 00:00 GMT-5 (05:00 UTC all year, no daylight saving) to the next.
A reduction is in force at once, a raise from the next reset; every change is confirmed by the
patron's PIN, set at the cage with his identity document shown. Time is moved by passing ``now``
to the service, or, through the API, by patching the service's clock
``patrons.services.self_limit.now``.
"""

import logging
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from ledger.errors import Conflict, InvalidInput, NotFound
from ledger.hashing import canonical_json
from ledger.models import Event
from ledger.verify import verify_chain
from patrons.models import PatronPin, SelfLimit
from patrons.services import self_limit as service
from patrons.services.patrons import patron_register
from patrons.services.self_limit import (
    EASTERN,
    MAX_PIN_ATTEMPTS,
    check_self_limit,
    check_self_limits,
    next_reset_after,
    patron_pin_set,
    pin_hash_digest,
    self_limit_get,
    self_limit_set,
    week_start_of,
)
from tests.conftest import ACTOR, client_as, staff_user

pytestmark = pytest.mark.django_db

NAME, DOCUMENT, PIN = "Jeanne Self-Limit", "ID-SL-998877", "4321"

# A Wednesday (Friday 2025-01-10 00:00 GMT-5 = 05:00 UTC).
WEDNESDAY = datetime(2025, 1, 15, 15, 0, tzinfo=UTC)
WEEK_START = "2025-01-10T05:00:00+00:00"
NEXT_RESET = "2025-01-17T05:00:00+00:00"


@pytest.fixture
def code() -> str:
    """An identified patron, with a name and an identity document in the registry, and a PIN."""
    code = patron_register(kind="identified", name=NAME, document=DOCUMENT, actor=ACTOR)["patron"]
    patron_pin_set(patron=code, pin=PIN, document=DOCUMENT, actor=ACTOR)
    return code


@pytest.fixture
def clock(monkeypatch):
    """Set the service's clock: ``clock(moment)``."""

    def set_clock(moment: datetime) -> None:
        monkeypatch.setattr(service, "now", lambda: moment)

    return set_clock


def est(*args) -> datetime:
    """A wall-clock time at GMT-5."""
    return datetime(*args, tzinfo=EASTERN)


def url(code: str) -> str:
    return f"/api/patrons/{code}/self-limit"


def change(code: str, cents: int, now: datetime, pin: str = PIN) -> dict:
    return self_limit_set(patron=code, max_bet_cents=cents, pin=pin, actor=ACTOR, now=now)


def body(cents, pin=PIN) -> dict:
    return {"max_bet_cents": cents, "pin": pin}


# --- setting it ----------------------------------------------------------------------------


def test_first_setting_is_in_force_at_once_and_appends_self_limit_set(code):
    """The first setting reduces "no limit": in force at once. It appends SelfLimitSet {patron,
    max_bet_cents, week_start, effective_from} on patron/<code> and returns the week and the next reset."""
    result = change(code, 10_000, WEDNESDAY)
    assert result == {
        "patron": code,
        "max_bet_cents": 10_000,
        "pending_max_bet_cents": None,
        "pending_from": None,
        "week_start": WEEK_START,
        "next_change_from": NEXT_RESET,
    }
    event = Event.objects.get(type="SelfLimitSet")
    assert (event.stream, event.actor) == (f"patron/{code}", ACTOR)
    assert event.data == {
        "patron": code,
        "max_bet_cents": 10_000,
        "week_start": WEEK_START,
        "effective_from": "2025-01-15T15:00:00+00:00",
        "in_force_cents": 10_000,
    }
    assert event.occurred_at == WEDNESDAY
    limit = SelfLimit.objects.get(pk=code)
    assert (limit.max_bet_cents, limit.week_start, limit.set_at) == (
        10_000,
        datetime.fromisoformat(WEEK_START),
        WEDNESDAY,
    )
    assert verify_chain().ok
    assert check_self_limits() == []


def test_the_events_hold_no_personal_data_and_never_the_pin(code, api, caplog):
    """DESIGN.md §The ledger: the events name the patron by code only; the PIN is in no event,
    no stored row (only its salted hash), no answer, no log line."""
    caplog.set_level(logging.DEBUG)
    response = api.post(url(code), body(5_000), format="json")
    assert response.status_code == 201
    assert PIN not in response.content.decode()
    event = Event.objects.get(type="SelfLimitSet")
    assert set(event.data) == {"patron", "max_bet_cents", "week_start", "effective_from", "in_force_cents"}
    for event in Event.objects.filter(stream=f"patron/{code}"):
        text = canonical_json(event.data)
        for secret in (NAME, DOCUMENT, "Jeanne", "ID-SL", PIN):
            assert secret not in text
            assert secret not in event.actor
    stored = PatronPin.objects.get(pk=code).pin_hash
    assert PIN not in stored and stored.startswith(("md5$", "pbkdf2_sha256$", "argon2", "bcrypt"))
    assert PIN not in caplog.text


def test_api_sets_the_limit_201_and_reads_it_back(code, api, clock):
    """POST → 201 with the week; GET → the limit, the next change time, and whether he may change it now."""
    clock(WEDNESDAY)
    response = api.post(url(code), body(20_000), format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["max_bet_cents"] == 20_000
    response = api.get(url(code))
    assert response.status_code == 200
    assert response.json() == {
        "patron": code,
        "max_bet_cents": 20_000,
        "pending_max_bet_cents": None,
        "pending_from": None,
        "week_start": WEEK_START,
        "next_change_from": NEXT_RESET,
        "may_change_now": False,
    }
    clock(datetime.fromisoformat(NEXT_RESET))
    assert api.get(url(code)).json()["may_change_now"] is True


def test_get_without_a_limit_is_404(code, api):
    response = api.get(url(code))
    assert response.status_code == 404
    assert "no self-limit" in response.json()["detail"]
    assert self_limit_get(code) is None


# --- reduce at once, raise at the reset ----------------------------------------------------


def test_a_reduction_is_in_force_at_once(code):
    """ "Pour réduire votre limite maximale": the lower limit binds the next bet."""
    change(code, 10_000, WEDNESDAY)
    result = change(code, 4_000, datetime.fromisoformat(NEXT_RESET) + timedelta(hours=1))
    assert (result["max_bet_cents"], result["pending_max_bet_cents"]) == (4_000, None)
    with pytest.raises(InvalidInput):
        check_self_limit(code, 4_001)
    assert check_self_limits() == []


def test_a_raise_waits_for_the_next_friday_midnight_gmt_minus_5(code, api, clock):
    """A raise is recorded as pending, shown where the limit is read, and binds only from the
    next reset: until then the old limit refuses the bigger bet."""
    change(code, 10_000, WEDNESDAY)
    clock(est(2025, 1, 22, 12, 0))  # the next week's Wednesday
    response = api.post(url(code), body(50_000), format="json")
    assert response.status_code == 201, response.json()
    assert response.json() | {} == {
        "patron": code,
        "max_bet_cents": 10_000,
        "pending_max_bet_cents": 50_000,
        "pending_from": "2025-01-24T05:00:00+00:00",
        "week_start": NEXT_RESET,
        "next_change_from": "2025-01-24T05:00:00+00:00",
    }
    event = Event.objects.filter(type="SelfLimitSet").latest("position")
    assert event.data["effective_from"] == "2025-01-24T05:00:00+00:00"
    shown = api.get(url(code)).json()
    assert (shown["max_bet_cents"], shown["pending_max_bet_cents"], shown["pending_from"]) == (
        10_000,
        50_000,
        "2025-01-24T05:00:00+00:00",
    )
    with pytest.raises(InvalidInput):
        check_self_limit(code, 10_001)  # the service clock: still the old week
    clock(datetime(2025, 1, 24, 4, 59, 59, tzinfo=UTC))
    with pytest.raises(InvalidInput):
        check_self_limit(code, 10_001)
    clock(datetime(2025, 1, 24, 5, 0, tzinfo=UTC))
    check_self_limit(code, 50_000)
    shown = api.get(url(code)).json()
    assert (shown["max_bet_cents"], shown["pending_max_bet_cents"], shown["pending_from"]) == (50_000, None, None)
    assert check_self_limits() == []
    # The next change folds the raise in: lowering from 50,000 is a reduction, in force at once.
    lowered = change(code, 30_000, datetime(2025, 1, 25, tzinfo=UTC))
    assert (lowered["max_bet_cents"], lowered["pending_max_bet_cents"]) == (30_000, None)
    assert check_self_limits() == []


# --- the PIN -------------------------------------------------------------------------------


def test_a_change_without_the_right_pin_is_400_on_pin_and_records_only_the_wrong_pin(code, api, clock):
    clock(WEDNESDAY)
    events = Event.objects.count()
    for pin in ("0000", "", None):
        response = api.post(url(code), {"max_bet_cents": 1_000, **({} if pin is None else {"pin": pin})}, format="json")
        assert response.status_code == 400, response.json()
        assert response.json()["field"] == "pin"
    # Nothing but the record of the wrong PIN (the count of wrong PINs in a row is the ledger's);
    # an empty or missing one is refused before any PIN is checked.
    assert Event.objects.exclude(type="PatronPinRefused").count() == events
    refused = Event.objects.filter(type="PatronPinRefused", data__patron=code).order_by("position")
    assert [e.data["wrong_in_a_row"] for e in refused] == [1]
    assert not SelfLimit.objects.exists()


def test_a_patron_without_a_pin_cannot_change_his_limit(api):
    other = patron_register(kind="identified", name="No Pin", document="ID-NOPIN-1", actor=ACTOR)["patron"]
    with pytest.raises(InvalidInput) as refused:
        change(other, 1_000, WEDNESDAY)
    assert refused.value.field == "pin" and "the cage sets it" in refused.value.message


def test_repeated_wrong_pins_lock_the_pin_until_the_cage_resets_it_with_a_supervisor(code, api):
    """The fifth wrong PIN in a row locks it, however long one waits (a lock that lapsed after
    15 minutes let a 4-digit PIN be found in days): even the right PIN is refused, and
    ``PatronPinLocked`` goes to the exception log. A reset asked at the cage and confirmed by a
    cage supervisor other than the one asking clears it; the patron chooses a new one. The count
    survives each refusal (it is committed before the 400)."""
    for left in range(MAX_PIN_ATTEMPTS - 1, 0, -1):
        with pytest.raises(InvalidInput) as refused:
            change(code, 1_000, WEDNESDAY, pin="9999")
        assert f"({left} more wrong and it locks)" in refused.value.message
    assert PatronPin.objects.get(pk=code).failed_attempts == MAX_PIN_ATTEMPTS - 1
    with pytest.raises(InvalidInput) as refused:
        change(code, 1_000, WEDNESDAY, pin="9999")
    assert "locked until the cage resets it" in refused.value.message
    assert Event.objects.filter(type="PatronPinLocked", data__patron=code).count() == 1
    with pytest.raises(InvalidInput) as refused:
        change(code, 1_000, WEDNESDAY + timedelta(days=30), pin=PIN)
    assert refused.value.field == "pin" and "locked" in refused.value.message
    # one person cannot replace it: a second cage login must confirm a reset
    replaced = api.post(f"/api/patrons/{code}/pin", {"pin": "1111", "document": DOCUMENT}, format="json")
    assert replaced.status_code == 409 and replaced.json()["field"] == "patron"
    asked = api.post(f"/api/patrons/{code}/pin-reset", {}, format="json")
    assert asked.status_code == 202, asked.json()
    approval = asked.json()["approval"]["id"]
    assert api.post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code == 403  # not the asker
    supervisor = client_as(staff_user("super9", "cage_supervisor"))
    reset = supervisor.post(f"/api/approvals/{approval}/confirm", {}, format="json")
    assert reset.status_code == 200, reset.json()
    assert not PatronPin.objects.filter(pk=code).exists()
    assert Event.objects.get(type="PatronPinReset", data__patron=code).data["approved_by"] == "super9"
    again = api.post(f"/api/patrons/{code}/pin", {"pin": "1111", "document": DOCUMENT}, format="json")
    assert again.status_code == 201, again.json()
    assert change(code, 1_000, WEDNESDAY + timedelta(days=30), pin="1111")["max_bet_cents"] == 1_000


def test_a_wrong_pin_count_set_back_with_raw_sql_reopens_no_guessing(code, api):
    """Four wrong PINs, the row's counter set back to 0 by SQL: the fifth wrong PIN still locks
    (the ledger counts them); the lock's row cleared by SQL still leaves it locked. The right PIN
    after wrong ones starts the count again, in the ledger too."""
    change(code, 1_000, WEDNESDAY, pin=PIN)  # a right PIN, no wrong one before: nothing recorded
    assert not Event.objects.filter(type="PatronPinAccepted").exists()
    for _ in range(2):
        with pytest.raises(InvalidInput):
            change(code, 2_000, WEDNESDAY, pin="9999")
    with pytest.raises(Conflict):  # the right PIN, refused for the week's second change
        change(code, 2_000, WEDNESDAY, pin=PIN)
    assert Event.objects.filter(type="PatronPinAccepted", data__patron=code).get().data["after_wrong"] == 2
    for _ in range(MAX_PIN_ATTEMPTS - 1):
        with pytest.raises(InvalidInput):
            change(code, 2_000, WEDNESDAY, pin="9999")
    with connection.cursor() as cursor:
        cursor.execute("UPDATE patrons_patronpin SET failed_attempts = 0 WHERE patron_id = %s", [code])
    with pytest.raises(InvalidInput) as refused:
        change(code, 2_000, WEDNESDAY, pin="9999")
    assert "locked until the cage resets it" in refused.value.message
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE patrons_patronpin SET failed_attempts = 0, locked_until = NULL WHERE patron_id = %s", [code]
        )
    with pytest.raises(InvalidInput) as refused:
        change(code, 2_000, WEDNESDAY + timedelta(days=7), pin=PIN)
    assert "locked" in refused.value.message


def test_the_cage_sets_the_pin_with_the_identity_document_shown(api):
    """POST /api/patrons/<code>/pin {pin, document}: the document must be the one on file; the
    event PatronPinSet names the patron only."""
    other = patron_register(kind="identified", name="Pin Setter", document="ID-PIN-42", actor=ACTOR)["patron"]
    wrong = api.post(f"/api/patrons/{other}/pin", {"pin": "1234", "document": "ID-PIN-43"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["field"] == "document"
    short = api.post(f"/api/patrons/{other}/pin", {"pin": "12", "document": "ID-PIN-42"}, format="json")
    assert short.status_code == 400 and short.json()["field"] == "pin"
    ok = api.post(f"/api/patrons/{other}/pin", {"pin": "1234", "document": "id-pin-42"}, format="json")
    assert ok.status_code == 201, ok.json()
    assert "1234" not in ok.content.decode()
    pin_set = Event.objects.filter(type="PatronPinSet").latest("position").data
    # The keyed digest of the stored hash, never the PIN nor the hash.
    assert pin_set == {"patron": other, "pin_digest": pin_hash_digest(other, PatronPin.objects.get(pk=other).pin_hash)}
    assert change(other, 2_000, WEDNESDAY, pin="1234")["max_bet_cents"] == 2_000
    bare = patron_register(kind="identified", name="No Document", actor=ACTOR)["patron"]
    response = api.post(f"/api/patrons/{bare}/pin", {"pin": "1234", "document": "X"}, format="json")
    assert response.status_code == 400 and response.json()["field"] == "document"


# --- once a week ---------------------------------------------------------------------------


def test_second_change_in_the_same_week_is_409_and_appends_nothing(code, api, clock):
    """A second change in the same week is refused: 409, a message with the next reset in UTC and
    GMT-5, nothing appended, the limit unchanged."""
    clock(WEDNESDAY)
    assert api.post(url(code), body(10_000), format="json").status_code == 201
    events = Event.objects.count()
    clock(est(2025, 1, 16, 23, 59, 59))  # Thursday, one second before the reset
    for amount in (5_000, 10_000, 50_000):  # lower, the same, higher: all refused
        response = api.post(url(code), body(amount), format="json")
        assert response.status_code == 409, response.json()
        assert response.json()["error"] == "conflict"
        assert "once a week" in response.json()["detail"]
        assert "2025-01-17 05:00 UTC (2025-01-17 00:00 GMT-5)" in response.json()["detail"]
    assert Event.objects.count() == events
    assert SelfLimit.objects.get(pk=code).max_bet_cents == 10_000


def test_second_change_in_the_same_week_through_the_service_raises_conflict(code):
    change(code, 10_000, WEDNESDAY)
    events = Event.objects.count()
    with pytest.raises(Conflict) as refused:
        change(code, 8_000, datetime(2025, 1, 10, 5, 0, tzinfo=UTC))
    assert refused.value.status == 409
    assert Event.objects.count() == events


@pytest.mark.parametrize(
    "set_at",
    [
        datetime(2025, 3, 12, 15, 0, tzinfo=UTC),
        datetime(2025, 7, 9, 15, 0, tzinfo=UTC),
        datetime(2025, 11, 5, tzinfo=UTC),
    ],
    ids=["march", "july", "november"],
)
def test_the_reset_is_friday_midnight_gmt_minus_5_all_year_without_daylight_saving(code, set_at):
    """ "heure de l'Est, soit GMT-5": a fixed offset. In July (New York on EDT, UTC-4) the reset
    is still 05:00 UTC, not 04:00: at 04:30 UTC on Friday the week has not turned."""
    result = change(code, 10_000, set_at)
    start = datetime.fromisoformat(result["week_start"])
    reset = datetime.fromisoformat(result["next_change_from"])
    assert (start.strftime("%A %H:%M"), reset.strftime("%A %H:%M")) == ("Friday 05:00", "Friday 05:00")
    assert reset - start == timedelta(days=7)
    with pytest.raises(Conflict):
        change(code, 9_000, reset - timedelta(minutes=30))
    assert change(code, 9_000, reset)["week_start"] == reset.isoformat()


def test_week_boundaries_are_friday_midnight_gmt_minus_5():
    """week_start_of / next_reset_after: 05:00 UTC on Friday, whatever the season."""
    cases = {
        datetime(2025, 3, 14, 4, 59, 59, tzinfo=UTC): ("2025-03-07T05:00:00+00:00", "2025-03-14T05:00:00+00:00"),
        datetime(2025, 3, 14, 5, 0, tzinfo=UTC): ("2025-03-14T05:00:00+00:00", "2025-03-21T05:00:00+00:00"),
        datetime(2025, 7, 11, 4, 30, tzinfo=UTC): ("2025-07-04T05:00:00+00:00", "2025-07-11T05:00:00+00:00"),
        est(2025, 6, 6, 15, 0): ("2025-06-06T05:00:00+00:00", "2025-06-13T05:00:00+00:00"),
    }
    for moment, (start, reset) in cases.items():
        week = week_start_of(moment)
        assert (week.isoformat(), next_reset_after(week).isoformat()) == (start, reset), moment


# --- the check every bet placement makes ---------------------------------------------------


def test_check_self_limit_refuses_over_and_accepts_at_the_limit(code, django_assert_num_queries):
    """At the limit passes; one cent over is refused (field stake_cents) naming the limit in EUR.
    A pure read, two queries: his row, and his latest ``SelfLimitSet`` (the row grants no more)."""
    check_self_limit(code, 10**9)  # no limit set: nothing to refuse
    change(code, 10_000, WEDNESDAY)
    with django_assert_num_queries(2):
        check_self_limit(code, 10_000)
    with django_assert_num_queries(2), pytest.raises(InvalidInput) as refused:
        check_self_limit(code, 10_001)
    assert refused.value.field == "stake_cents"
    assert refused.value.status == 400
    assert "over patron" in refused.value.message
    assert "own limit of 100.00 EUR" in refused.value.message
    assert "responsible gaming" in refused.value.message
    check_self_limit("anon", 10**9)  # unrated play is never limited
    check_self_limit("P99999", 10**9)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("amount", [0, -100, 100.5, 100.0, "100", True, None], ids=repr)
def test_bad_amount_is_400_on_max_bet_cents_and_appends_nothing(code, api, amount):
    events = Event.objects.count()
    response = api.post(url(code), body(amount), format="json")
    assert response.status_code == 400, response.json()
    assert response.json()["field"] == "max_bet_cents"
    assert Event.objects.count() == events
    assert not SelfLimit.objects.exists()


def test_missing_amount_is_400(code, api):
    response = api.post(url(code), {"pin": PIN}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "max_bet_cents"


@pytest.mark.parametrize("amount", [0, -1, 1.5, "100", True, None, 10**12 + 1], ids=repr)
def test_service_refuses_a_bad_amount(code, amount):
    with pytest.raises(InvalidInput) as refused:
        change(code, amount, WEDNESDAY)
    assert refused.value.field == "max_bet_cents"
    assert not Event.objects.filter(type="SelfLimitSet").exists()


def test_unknown_patron_is_404_on_patron(api):
    events = Event.objects.count()
    response = api.post(url("P99999"), body(1_000), format="json")
    assert response.status_code == 404
    assert response.json()["field"] == "patron"
    assert api.get(url("P99999")).status_code == 404
    assert Event.objects.count() == events
    with pytest.raises(NotFound):
        change("P99999", 1_000, WEDNESDAY)
    with pytest.raises(NotFound):
        self_limit_get("P99999")


def test_the_anonymous_patron_cannot_set_one(api):
    """``anon`` is shared by all unrated play: a limit there would bind every anonymous player."""
    patron_register(kind="anonymous", actor=ACTOR)
    events = Event.objects.count()
    response = api.post(url("anon"), body(1_000), format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "patron"
    assert Event.objects.count() == events


def test_a_retry_with_the_same_idempotency_key_appends_nothing(code, api, clock):
    """A retried request returns the first result (not a 409), appending nothing."""
    clock(WEDNESDAY)
    first = api.post(url(code), body(4_000), format="json", HTTP_IDEMPOTENCY_KEY="sl-1")
    events = Event.objects.count()
    again = api.post(url(code), body(4_000), format="json", HTTP_IDEMPOTENCY_KEY="sl-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert Event.objects.count() == events


def test_the_schema_describes_the_endpoint(api):
    """POST (with an Idempotency-Key header, an integer max_bet_cents) and GET on one path."""
    schema = api.get("/api/schema/", {"format": "json"}).json()
    operations = schema["paths"]["/api/patrons/{code}/self-limit"]
    assert {"get", "post"} <= set(operations)
    assert "Idempotency-Key" in [p["name"] for p in operations["post"].get("parameters", [])]
    assert "Idempotency-Key" not in [p["name"] for p in operations["get"].get("parameters", [])]
    ref = operations["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert request["properties"]["max_bet_cents"]["type"] == "integer"


def test_a_bet_over_the_self_limit_is_refused_at_every_game(api, table):
    """The patron's own maximum applies to roulette, black jack, Caribbean stud and baccarat bets."""
    from tests.conftest import make_patron, open_by_total, set_self_limit

    p = make_patron(100_000)
    set_self_limit(p, 2_000)
    open_by_total("B1", "blackjack", 1_000_000)
    api.post("/api/tables/B1/shoes", {"mode": "shuffled"}, format="json")
    open_by_total("C1", "caribbean_stud", 1_000_000)
    open_by_total("P1", "baccarat", 1_000_000)
    api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
    rounds = {
        t: api.post(f"/api/tables/{t}/rounds", {}, format="json").json()["round"] for t in ("R1", "B1", "C1", "P1")
    }
    attempts = {
        "R1": ("bets", {"patron": p, "stake_cents": 2_500, "bet": {"type": "chance_simple", "chance": "rouge"}}),
        "B1": ("blackjack-bets", {"patron": p, "box": 1, "stake_cents": 2_500, "seated": True}),
        "C1": ("antes", {"patron": p, "box": 1, "ante_cents": 2_500}),
        "P1": ("baccarat-bets", {"patron": p, "bet": "banker", "stake_cents": 2_500}),
    }
    events = Event.objects.count()
    for table, (endpoint, body) in attempts.items():
        response = api.post(f"/api/rounds/{rounds[table]}/{endpoint}", body, format="json")
        assert response.status_code == 400, (table, response.json())
        assert response.json()["field"] == "stake_cents" and "own limit" in response.json()["detail"], table
    assert Event.objects.count() == events
    ok = api.post(
        f"/api/rounds/{rounds['P1']}/baccarat-bets", {"patron": p, "bet": "banker", "stake_cents": 2_000}, format="json"
    )
    assert ok.status_code == 201
