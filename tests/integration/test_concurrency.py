"""Races on PostgreSQL with real commits and real threads (cases C13–C15, C17, C19)."""

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from cashier.services.cage import chips_purchase, chips_redeem
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import accounts, store
from ledger.errors import InsufficientChips, VersionConflict
from ledger.models import Event, Posting
from ledger.store import Leg, NewEvent, append
from ledger.verify import verify_chain
from tests.conftest import ACTOR, API_TEST_ROLES, make_patron, staff_user

from .concurrency import run_concurrently

pytestmark = pytest.mark.postgres


def _append_at(version):
    def call():
        with transaction.atomic():
            return append(
                stream="race/1",
                expected_version=version,
                actor="t",
                events=[NewEvent("Raced", {}, [Leg("a", 1), Leg("b", -1)])],
            )

    return call


def test_two_appends_expecting_the_same_version_one_wins(committed_db):
    _append_at(0)()
    outcomes = run_concurrently(_append_at(1), _append_at(1))
    winners = [o for o in outcomes if isinstance(o, list)]
    losers = [o for o in outcomes if isinstance(o, VersionConflict)]
    assert len(winners) == 1 and len(losers) == 1
    assert winners[0][0].version == 2
    assert list(Event.objects.filter(stream="race/1").values_list("version", flat=True)) == [1, 2]
    assert verify_chain().ok


@pytest.mark.parametrize("attempt", range(5))
def test_c13_two_redemptions_at_once_never_go_negative(committed_db, cage, attempt):
    code = make_patron(10_000)
    outcomes = run_concurrently(
        lambda: chips_redeem(patron=code, amount_cents=10_000, actor=ACTOR),
        lambda: chips_redeem(patron=code, amount_cents=5_000, actor=ACTOR),
    )
    succeeded = [o for o in outcomes if isinstance(o, dict)]
    assert len(succeeded) == 1 and sum(isinstance(o, InsufficientChips) for o in outcomes) == 1
    assert store.balance(accounts.patron_chips(code)) in (0, 5_000)
    assert store.balance(accounts.patron_chips(code)) == 10_000 - succeeded[0]["amount_cents"]


def test_c14_fifty_concurrent_credits_are_all_counted(committed_db, cage):
    code = make_patron()

    def five_purchases():
        for _ in range(5):
            chips_purchase(patron=code, amount_cents=10, actor=ACTOR)

    outcomes = run_concurrently(*[five_purchases] * 10)
    assert outcomes == [None] * 10
    assert store.balance(accounts.patron_chips(code)) == 500
    assert Posting.objects.filter(account=accounts.patron_chips(code)).count() == 50


def test_c15_identical_purchases_with_one_key_make_one_transaction(committed_db, cage):
    code = make_patron()
    buy = lambda: chips_purchase(patron=code, amount_cents=20_000, actor=ACTOR, idempotency_key="buy-42")  # noqa: E731
    first, second = run_concurrently(buy, buy)
    assert isinstance(first, dict) and first == second
    assert Event.objects.filter(type="ChipsPurchased", data__patron=code).count() == 1
    assert store.balance(accounts.patron_chips(code)) == 20_000
    assert store.balance(accounts.CAGE_CASH) == 10_000_000 + 20_000


def test_c17_two_commands_on_one_round_expecting_the_same_version(committed_db, table):
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)
    version = coup["version"]
    bet = {"type": "chance_simple", "chance": "rouge"}

    def place():
        return bet_place(
            round_id=coup["round"], patron=code, stake_cents=1_000, bet=bet, expected_version=version, actor=ACTOR
        )

    outcomes = run_concurrently(place, place)
    assert sum(isinstance(o, dict) for o in outcomes) == 1
    assert sum(isinstance(o, VersionConflict) for o in outcomes) == 1
    assert Event.objects.filter(stream=f"round/{coup['round']}").count() == version + 1
    assert store.balance(accounts.patron_chips(code)) == 99_000


def test_c17_via_the_api_the_loser_gets_409(committed_db, table, django_user_model):
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)
    user = staff_user("dealer", *API_TEST_ROLES)

    def post():
        client = APIClient()
        client.force_authenticate(user)
        body = {
            "patron": code,
            "stake_cents": 1_000,
            "bet": {"type": "chance_simple", "chance": "noir"},
            "expected_version": coup["version"],
        }
        return client.post(f"/api/rounds/{coup['round']}/bets", body, format="json").status_code

    assert sorted(run_concurrently(post, post)) == [201, 409]


def test_c19_two_settles_at_once_pay_once(committed_db, table, django_user_model):
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)
    bet_place(
        round_id=coup["round"],
        patron=code,
        stake_cents=1_000,
        bet={"type": "chance_simple", "chance": "pair"},
        actor=ACTOR,
    )
    round_close_bets(round_id=coup["round"], actor=ACTOR)
    user = staff_user("dealer", *API_TEST_ROLES)

    def settle():
        client = APIClient()
        client.force_authenticate(user)
        return client.post(f"/api/rounds/{coup['round']}/result", {"number": 2}, format="json").status_code

    assert sorted(run_concurrently(settle, settle)) == [200, 409]
    assert Event.objects.filter(type="BetSettled").count() == 1
    # 1,000 EUR of chips − 10 staked + 20 back (pair wins 1:1 on 2)
    assert store.balance(accounts.patron_chips(code)) == 101_000


def test_round_record_result_is_all_or_nothing(committed_db, table, monkeypatch):
    """A crash in the middle of a settlement leaves no half-written coup."""
    from games.services import rounds

    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)
    for chance in ("pair", "impair"):
        bet_place(
            round_id=coup["round"],
            patron=code,
            stake_cents=1_000,
            bet={"type": "chance_simple", "chance": chance},
            actor=ACTOR,
        )
    round_close_bets(round_id=coup["round"], actor=ACTOR)
    before = Event.objects.count()
    real = rounds._settle_bet
    calls = []

    def crash_on_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("power cut")
        return real(*args, **kwargs)

    monkeypatch.setattr(rounds, "_settle_bet", crash_on_second)
    with pytest.raises(RuntimeError):
        round_record_result(round_id=coup["round"], number=4, actor=ACTOR)
    assert Event.objects.count() == before
    assert store.balance(accounts.patron_chips(code)) == 98_000
    monkeypatch.setattr(rounds, "_settle_bet", real)
    result = round_record_result(round_id=coup["round"], number=4, actor=ACTOR)
    assert result["bets_settled"] == 2 and store.balance(accounts.patron_chips(code)) == 100_000
