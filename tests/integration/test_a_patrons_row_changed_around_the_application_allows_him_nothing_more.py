"""Someone holding the database credentials, but not ``SECRET_KEY``, changes a patron's rows with
raw SQL: his self-limit raised or deleted, his PIN hash replaced with one of a PIN he knows. The
bet placement, the limit the pages show and the PIN check read what the patron's sealed events
say: he is never allowed more than he asked for, and a planted PIN opens nothing.
"""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.hashers import make_password
from django.db import connection

from ledger.errors import BetRefused, InvalidInput
from patrons.models import PatronPin, SelfLimit
from patrons.services import self_limit as self_limits
from patrons.services.self_limit import (
    check_self_limits,
    limit_in_force,
    patron_pin_reset,
    self_limit_get,
    self_limit_set,
)
from tests.conftest import ACTOR, PIN, make_patron, set_self_limit, staff_user
from tests.integration.forgery import forge

pytestmark = pytest.mark.django_db

WEDNESDAY = datetime(2025, 1, 15, 15, 0, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch):
    monkeypatch.setattr(self_limits, "now", lambda: WEDNESDAY)


def _raw(sql: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _bet(api, round_id: str, patron: str, cents: int):
    body = {"patron": patron, "stake_cents": cents, "bet": {"type": "chance_simple", "chance": "rouge"}}
    return api.post(f"/api/rounds/{round_id}/bets", body, format="json")


def test_a_self_limit_row_raised_with_raw_sql_lets_no_bet_over_the_sealed_limit(api, table, clock):
    patron = make_patron(100_000)
    set_self_limit(patron, 5_000)
    _raw("UPDATE cashier_selflimit SET max_bet_cents = 100000000 WHERE patron_code = %s", [patron])
    round_id = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    refused = _bet(api, round_id, patron, 50_000)
    assert refused.status_code == 400, refused.json()
    assert refused.json()["field"] == "stake_cents" and "own limit of 50.00 EUR" in refused.json()["detail"]
    assert _bet(api, round_id, patron, 5_000).status_code == 201
    assert limit_in_force(patron) == 5_000
    shown = api.get(f"/api/patrons/{patron}/self-limit").json()
    assert shown["max_bet_cents"] == 5_000
    assert self_limit_get(patron)["max_bet_cents"] == 5_000
    assert [d.field for d in check_self_limits()] == ["max_bet_cents"]


def test_a_forged_self_limit_event_at_his_streams_tail_vouches_for_no_raised_row(api, table, clock):
    patron = make_patron(100_000)
    set_self_limit(patron, 5_000)
    data = {"patron": patron, "max_bet_cents": 100_000_000, "week_start": "2025-01-10T05:00:00+00:00"}
    forge("SelfLimitSet", data, f"patron/{patron}")
    _raw("UPDATE cashier_selflimit SET max_bet_cents = 100000000 WHERE patron_code = %s", [patron])
    round_id = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    for _ in range(2):  # the second time from the checked events kept by the process
        refused = _bet(api, round_id, patron, 50_000)
        assert refused.status_code == 400 and "own limit of 50.00 EUR" in refused.json()["detail"]
    assert limit_in_force(patron) == 5_000
    assert self_limit_get(patron)["max_bet_cents"] == 5_000


def test_a_self_limit_row_deleted_with_raw_sql_still_limits_him(api, table, clock):
    patron = make_patron(100_000)
    set_self_limit(patron, 5_000)
    _raw("DELETE FROM cashier_selflimit WHERE patron_code = %s", [patron])
    round_id = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    assert _bet(api, round_id, patron, 5_001).status_code == 400
    assert limit_in_force(patron) == 5_000
    assert self_limit_get(patron)["max_bet_cents"] == 5_000


def test_a_self_limit_row_lowered_with_raw_sql_binds_him_as_the_stricter(clock):
    patron = make_patron()
    set_self_limit(patron, 5_000)
    _raw("UPDATE cashier_selflimit SET max_bet_cents = 1000 WHERE patron_code = %s", [patron])
    assert limit_in_force(patron) == 1_000
    assert self_limit_get(patron)["max_bet_cents"] == 1_000
    with pytest.raises(BetRefused):
        self_limits.check_self_limit(patron, 1_001)


def test_a_raise_after_a_planted_row_still_waits_for_the_weekly_reset(monkeypatch):
    patron = make_patron()
    monkeypatch.setattr(self_limits, "now", lambda: datetime(2025, 1, 8, 15, 0, tzinfo=UTC))
    set_self_limit(patron, 5_000)
    _raw("UPDATE cashier_selflimit SET max_bet_cents = 100000000 WHERE patron_code = %s", [patron])
    monkeypatch.setattr(self_limits, "now", lambda: WEDNESDAY)
    result = self_limit_set(patron=patron, max_bet_cents=50_000, pin=PIN, actor=ACTOR)
    # Measured from his sealed 5,000, 50,000 is a raise: pending until Friday, not in force now.
    assert (result["max_bet_cents"], result["pending_max_bet_cents"]) == (5_000, 50_000)
    assert result["pending_from"] == "2025-01-17T05:00:00+00:00"
    assert limit_in_force(patron) == 5_000
    assert SelfLimit.objects.get(pk=patron).max_bet_cents == 5_000
    assert check_self_limits() == []


def test_a_pin_hash_planted_with_raw_sql_opens_nothing(clock):
    patron = make_patron()
    set_self_limit(patron, 5_000)
    _raw("UPDATE patrons_patronpin SET pin_hash = %s WHERE patron_id = %s", [make_password("9999"), patron])
    for pin in ("9999", PIN):
        with pytest.raises(InvalidInput) as refused:
            self_limit_set(patron=patron, max_bet_cents=1_000, pin=pin, actor=ACTOR)
        assert refused.value.field == "pin" and "differs from the ledger" in refused.value.message
    assert PatronPin.objects.get(pk=patron).failed_attempts == 0  # the patron typed nothing wrong
    assert SelfLimit.objects.get(pk=patron).max_bet_cents == 5_000


def test_a_pin_row_revived_after_its_reset_opens_nothing(clock):
    patron = make_patron()
    set_self_limit(patron, 5_000)
    kept = PatronPin.objects.filter(pk=patron).values_list("pin_hash", "set_at").get()
    staff_user("cashier9", "cashier")
    staff_user("super9", "cage_supervisor")
    patron_pin_reset(patron=patron, approver="super9", actor="cashier9")
    _raw(
        "INSERT INTO patrons_patronpin (patron_id, pin_hash, set_at, failed_attempts) VALUES (%s, %s, %s, 0)",
        [patron, *kept],
    )
    with pytest.raises(InvalidInput) as refused:
        self_limit_set(patron=patron, max_bet_cents=1_000, pin=PIN, actor=ACTOR)
    assert refused.value.field == "pin"
    assert SelfLimit.objects.get(pk=patron).max_bet_cents == 5_000
