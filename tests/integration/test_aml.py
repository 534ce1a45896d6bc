"""AML thresholds (France/EU defaults): identity at 2,000 EUR, log at 3,000, report over 10,000.

Each rule is tested at, just under and just over its threshold, and across two transactions
that add up over it; every decision is an event on ``aml/<patron>`` naming the patron by code.
"""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from cashier.services.cage import chips_purchase, chips_redeem
from games.services.tables import table_buy_in
from ledger import store
from ledger.errors import Conflict, InvalidInput
from ledger.models import Event
from ledger.store import Leg, NewEvent
from ledger.verify import verify_chain
from patrons.models import Patron
from patrons.services import aml
from patrons.services.patrons import patron_register
from staff.roles import RoleRequired, grant
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db


def _user(name: str, *roles: str) -> str:
    grant(get_user_model().objects.create_user(username=name, password="x"), *roles)
    return name


@pytest.fixture
def nameless(cage) -> str:
    """A rated patron known by a name only: no identity document on file."""
    return patron_register(kind="identified", name="Walk-in in a red coat", actor=ACTOR)["patron"]


@pytest.fixture
def known(cage) -> str:
    return make_patron()


def _win(code: str, cents: int) -> None:
    with transaction.atomic():
        store.lock_writers()
        store.append(
            stream="test/wins",
            expected_version=store.stream_version("test/wins"),
            actor=ACTOR,
            events=[
                NewEvent(
                    "TestWon", {"patron": code}, [Leg(f"patron:{code}:chips", cents), Leg("house:bankroll", -cents)]
                )
            ],
        )


def _aml(code: str) -> list[str]:
    return list(Event.objects.filter(stream=f"aml/{code}").order_by("position").values_list("type", flat=True))


@pytest.mark.parametrize(("amount", "refused"), [(199_999, False), (200_000, True), (200_001, True)])
def test_one_purchase_at_the_identity_threshold_needs_an_identity(nameless, amount, refused):
    if not refused:
        chips_purchase(patron=nameless, amount_cents=amount, actor=ACTOR)
        assert _aml(nameless) == []
        return
    before = Event.objects.filter(type="ChipsPurchased").count()
    with pytest.raises(aml.IdentityRequired) as refusal:
        chips_purchase(patron=nameless, amount_cents=amount, actor=ACTOR)
    assert refusal.value.status == 409 and refusal.value.field == "patron"
    assert "2,000.00 EUR or more" in refusal.value.message and "identity" in refusal.value.message
    assert Event.objects.filter(type="ChipsPurchased").count() == before  # the sale was rolled back
    (event,) = Event.objects.filter(stream=f"aml/{nameless}")
    assert event.type == "AmlTransactionRefused"
    assert event.data["amount_cents"] == amount and event.data["threshold_cents"] == 200_000
    assert event.data["channel"] == "cage_purchase" and event.postings.count() == 0


def test_two_purchases_that_add_up_to_the_threshold_are_refused_at_the_second(nameless):
    chips_purchase(patron=nameless, amount_cents=100_000, actor=ACTOR)
    chips_purchase(patron=nameless, amount_cents=99_999, actor=ACTOR)  # the day: 1,999.99
    with pytest.raises(aml.IdentityRequired) as refusal:
        chips_purchase(patron=nameless, amount_cents=1, actor=ACTOR)  # would make 2,000.00
    assert "2,000.00" in refusal.value.message and refusal.value.decision["day_total_cents"] == 200_000
    assert aml.cash_day_totals(nameless, Event.objects.last().gaming_day) == {
        "in": 199_999,
        "out": 0,
        "transactions": 2,
    }


def test_a_cash_buy_in_at_the_table_counts_as_cash_in(nameless, table):
    chips_purchase(patron=nameless, amount_cents=150_000, actor=ACTOR)
    table_buy_in(code="R1", patron=nameless, amount_cents=49_999, actor=ACTOR)
    with pytest.raises(aml.IdentityRequired):
        table_buy_in(code="R1", patron=nameless, amount_cents=1, actor=ACTOR)
    assert _aml(nameless)[-1] == "AmlTransactionRefused"
    assert Event.objects.get(stream=f"aml/{nameless}").data["channel"] == "table_buy_in"


def test_redemptions_are_aggregated_on_their_own(nameless):
    chips_purchase(patron=nameless, amount_cents=199_999, actor=ACTOR)
    _win(nameless, 100_000)  # chips won at a table: not cash, not counted
    chips_redeem(patron=nameless, amount_cents=150_000, actor=ACTOR)  # out: 1,500 — in stays 1,999.99
    chips_redeem(patron=nameless, amount_cents=49_999, actor=ACTOR)
    with pytest.raises(aml.IdentityRequired) as refusal:
        chips_redeem(patron=nameless, amount_cents=1, actor=ACTOR)
    assert "redeem" in refusal.value.message and refusal.value.decision["direction"] == "out"


def test_the_shared_anonymous_patron_is_refused_per_transaction_only(cage):
    anon = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    chips_purchase(patron=anon, amount_cents=199_999, actor=ACTOR)
    chips_purchase(patron=anon, amount_cents=199_999, actor=ACTOR)  # another stranger: no aggregate
    with pytest.raises(aml.IdentityRequired):
        chips_purchase(patron=anon, amount_cents=200_000, actor=ACTOR)
    with pytest.raises(InvalidInput):  # the shared patron cannot be given one person's identity
        aml.patron_identity_record(patron=anon, name="X", document="Y", actor=_user("c1", "cashier"))


def test_recording_the_identity_lets_the_same_purchase_through(nameless):
    with pytest.raises(aml.IdentityRequired):
        chips_purchase(patron=nameless, amount_cents=250_000, actor=ACTOR)
    with pytest.raises(RoleRequired):
        aml.patron_identity_record(patron=nameless, name="Jean Dupont", document="FR-ID 123", actor="nobody")
    aml.patron_identity_record(
        patron=nameless, name="Jean Dupont", document="FR-ID 123", actor=_user("cashier1", "cashier")
    )
    chips_purchase(patron=nameless, amount_cents=250_000, actor=ACTOR)
    assert _aml(nameless) == ["AmlTransactionRefused", "PatronIdentityRecorded", "AmlIdentityChecked"]
    checked = Event.objects.filter(stream=f"aml/{nameless}").last()
    assert checked.data["threshold_cents"] == 200_000 and checked.data["day_total_cents"] == 250_000


@pytest.mark.parametrize(("amount", "logged"), [(299_999, False), (300_000, True), (300_001, True)])
def test_the_multiple_transaction_log_lists_transactions_of_3000_or_more(known, amount, logged):
    chips_purchase(patron=known, amount_cents=amount, actor=ACTOR)
    assert ("AmlTransactionLogged" in _aml(known)) is logged
    assert _aml(known)[0] == "AmlIdentityChecked"  # over 2,000: identity on file, recorded as checked


def test_two_transactions_under_3000_each_are_not_logged(known):
    chips_purchase(patron=known, amount_cents=299_999, actor=ACTOR)
    chips_purchase(patron=known, amount_cents=299_999, actor=ACTOR)
    assert "AmlTransactionLogged" not in _aml(known)


@pytest.mark.parametrize(("amount", "flagged"), [(999_999, False), (1_000_000, False), (1_000_001, True)])
def test_a_day_total_over_10000_is_flagged_for_a_report(known, amount, flagged):
    chips_purchase(patron=known, amount_cents=amount, actor=ACTOR)
    assert ("AmlAggregateFlagged" in _aml(known)) is flagged


def test_the_aggregate_flag_comes_with_the_transaction_that_crosses_and_only_once(known):
    chips_purchase(patron=known, amount_cents=600_000, actor=ACTOR)
    chips_purchase(patron=known, amount_cents=400_000, actor=ACTOR)  # exactly 10,000: not over
    assert "AmlAggregateFlagged" not in _aml(known)
    chips_purchase(patron=known, amount_cents=1, actor=ACTOR)
    chips_purchase(patron=known, amount_cents=50_000, actor=ACTOR)
    flags = Event.objects.filter(stream=f"aml/{known}", type="AmlAggregateFlagged")
    assert [(f.data["direction"], f.data["day_total_cents"], f.data["amount_cents"]) for f in flags] == [
        ("in", 1_000_001, 1)
    ]
    chips_redeem(patron=known, amount_cents=1_000_001, actor=ACTOR)  # cash out has its own total
    assert [f.data["direction"] for f in flags.all()] == ["in", "out"]


def test_the_thresholds_come_from_the_settings(known, settings):
    settings.AML_LOG_THRESHOLD_CENTS = 100_000  # another jurisdiction
    settings.AML_JURISDICTION = "XX"
    chips_purchase(patron=known, amount_cents=100_000, actor=ACTOR)
    logged = Event.objects.get(stream=f"aml/{known}", type="AmlTransactionLogged")
    assert logged.data["jurisdiction"] == "XX" and logged.data["threshold_cents"] == 100_000


def test_ledger_events_name_patrons_by_code_only(nameless):
    aml.patron_identity_record(
        patron=nameless, name="Marie Curieuse", document="PASSPORT 99X", actor=_user("sup", "cage_supervisor")
    )
    chips_purchase(patron=nameless, amount_cents=1_100_000, actor=ACTOR)
    for event in Event.objects.all():
        text = str(event.data)
        assert "Marie" not in text and "99X" not in text and "red coat" not in text, event


def test_an_identity_is_erased_only_after_retention_and_the_chain_still_verifies(nameless):
    supervisor = _user("sup", "cage_supervisor")
    aml.patron_identity_record(patron=nameless, name="Jean Dupont", document="FR-ID 1", actor=supervisor)
    chips_purchase(patron=nameless, amount_cents=300_000, actor=ACTOR)
    with pytest.raises(Conflict) as kept:
        aml.patron_identity_erase(patron=nameless, actor=supervisor)
    assert "must be kept until" in kept.value.message
    with pytest.raises(RoleRequired):
        aml.patron_identity_erase(patron=nameless, actor=_user("c2", "cashier"))
    later = timezone.now() + timedelta(days=5 * 366 + 1)
    result = aml.patron_identity_erase(patron=nameless, actor=supervisor, now=later)
    patron = Patron.objects.get(code=nameless)
    assert (patron.name, patron.document) == ("", "")
    assert Event.objects.get(position=result["event"]).data == {
        "patron": nameless,
        "retention_ended": result["retention_ended"],
    }
    assert verify_chain().ok


def test_a_sale_reversed_as_keyed_in_error_counts_in_no_later_total(known):
    """A chip sale reversed with a cage supervisor's approval was no cash across the counter:
    the next sale's day total leaves it out (1,500 reversed + 1,000 is 1,000, under the 2,000
    at which the identity is checked), and so does the patron's list of cash transactions."""
    from approvals.services import approval_confirm, approval_request
    from patrons.visits import patron_cash_rows
    from tests.conftest import SHIFT_CASHIER

    sale = chips_purchase(patron=known, amount_cents=150_000, actor=SHIFT_CASHIER)
    asked = approval_request(
        kind="cage_transaction_reverse", payload={"event": sale["event"], "reason": "keyed twice"}, actor=SHIFT_CASHIER
    )
    approval_confirm(approval=asked["approval"]["id"], actor=_user("super1", "cage_supervisor"))
    again = chips_purchase(patron=known, amount_cents=100_000, actor=SHIFT_CASHIER)

    assert _aml(known) == []
    assert [(row[0], row[4]) for row in patron_cash_rows(known)] == [(again["event"], 100_000)]
