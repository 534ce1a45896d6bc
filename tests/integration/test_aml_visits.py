"""AML per visit (séance) beside AML per gaming day, and structuring flags.

The French rule counts identity at 2,000 EUR of chip exchanges per séance; the US rules total
per gaming day. ``AML_BASIS`` selects; a visit is a patron's exchanges less than
``AML_VISIT_GAP_HOURS`` apart (``patrons.visits``). Structuring: three visits (or days) within
seven days, each between 80 % and 100 % of the identity threshold (``patrons.structuring``).
"""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from cashier.services.cage import chips_purchase, chips_redeem
from ledger import posting_rules, store
from ledger.accounts import patron_chips
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.store import NewEvent
from patrons.services import aml
from patrons.services.patrons import patron_register
from patrons.structuring import structuring_flags
from patrons.visits import Exchange, group_visits
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db


@pytest.fixture
def nameless(cage) -> str:
    return patron_register(kind="identified", name="Walk-in in a red coat", actor=ACTOR)["patron"]


def past_purchase(code: str, cents: int, at: datetime) -> Event:
    """A purchase recorded at ``at`` (its gaming day follows): an earlier exchange of the patron
    (on a stream of its own: the cage's stream is versioned by its row)."""
    with transaction.atomic():
        store.lock_writers()
        (event,) = store.append(
            stream="test/past-exchanges",
            expected_version=store.stream_version("test/past-exchanges"),
            actor=ACTOR,
            events=[
                NewEvent(
                    "ChipsPurchased",
                    {"patron": code, "amount_cents": cents, "transaction": f"T-{at.timestamp():.0f}"},
                    posting_rules.chip_purchase(patron_chips(code), cents),
                    occurred_at=at,
                )
            ],
        )
    return event


def _x(patron: str, minutes: int, cents: int = 100, direction: str = "in") -> Exchange:
    at = datetime(2026, 3, 1, 20, 0, tzinfo=UTC) + timedelta(minutes=minutes)
    return Exchange(patron, minutes, at, at.date(), direction, cents)


def test_exchanges_less_than_the_gap_apart_make_one_visit_and_a_longer_pause_a_new_one():
    gap = timedelta(hours=4)
    visits = group_visits([_x("P1", 0), _x("P1", 239), _x("P1", 239 + 240), _x("P2", 10)], gap)
    assert [(v.patron, [e.position for e in v.exchanges]) for v in visits] == [
        ("P1", [0, 239]),
        ("P1", [479]),
        ("P2", [10]),
    ]
    assert visits[0].total_cents("in") == 200 and visits[0].total_cents("out") == 0


def test_per_visit_two_exchanges_in_one_visit_add_up_to_the_identity_threshold(settings, nameless):
    settings.AML_BASIS = "visit"
    past_purchase(nameless, 150_000, timezone.now() - timedelta(hours=1))
    with pytest.raises(aml.IdentityRequired) as refusal:
        chips_purchase(patron=nameless, amount_cents=50_000, actor=ACTOR)
    assert "2,000.00 EUR or more in one visit" in refusal.value.message
    assert "the visit's cash in with it 2,000.00" in refusal.value.message
    refused = Event.objects.get(stream=f"aml/{nameless}", type="AmlTransactionRefused")
    assert (refused.data["basis"], refused.data["visit_total_cents"]) == ("visit", 200_000)


def test_per_visit_a_pause_longer_than_the_gap_starts_a_new_visit(settings, nameless):
    settings.AML_BASIS, settings.AML_VISIT_GAP_HOURS = "visit", 1
    past_purchase(nameless, 150_000, timezone.now() - timedelta(minutes=90))
    chips_purchase(patron=nameless, amount_cents=50_000, actor=ACTOR)  # a new visit: 500 EUR
    assert not Event.objects.filter(stream=f"aml/{nameless}").exists()


def test_per_gaming_day_the_same_exchanges_add_up_whatever_the_pause(settings, nameless):
    settings.AML_BASIS, settings.AML_VISIT_GAP_HOURS = "gaming_day", 1
    first = chips_purchase(patron=nameless, amount_cents=150_000, actor=ACTOR)
    assert first["amount_cents"] == 150_000
    with pytest.raises(aml.IdentityRequired) as refusal:
        chips_purchase(patron=nameless, amount_cents=50_000, actor=ACTOR)
    assert "in one gaming day" in refusal.value.message
    refused = Event.objects.get(stream=f"aml/{nameless}", type="AmlTransactionRefused")
    assert (refused.data["basis"], refused.data["day_total_cents"]) == ("gaming_day", 200_000)
    assert "visit_total_cents" not in refused.data


def test_per_visit_the_report_threshold_totals_the_visit(settings, cage):
    settings.AML_BASIS = "visit"
    known = make_patron()
    past_purchase(known, 900_000, timezone.now() - timedelta(hours=2))
    chips_purchase(patron=known, amount_cents=200_000, actor=ACTOR)
    flagged = Event.objects.get(stream=f"aml/{known}", type="AmlAggregateFlagged")
    assert flagged.data["visit_total_cents"] == 1_100_000 and flagged.data["threshold_cents"] == 1_000_000


def test_three_visits_just_under_the_threshold_within_the_window_are_flagged(settings, cage):
    settings.AML_BASIS = "visit"
    known = make_patron()
    now = timezone.now()
    past_purchase(known, 190_000, now - timedelta(days=3))
    past_purchase(known, 160_000, now - timedelta(days=2))  # 80 %: counts
    today = chips_purchase(patron=known, amount_cents=199_999, actor=ACTOR)
    (flag,) = structuring_flags(current_gaming_day())
    assert (flag["patron"], flag["direction"], flag["basis"]) == (known, "in", "visit")
    assert [u["total_cents"] for u in flag["units"]] == [190_000, 160_000, 199_999]
    assert flag["amount_cents"] == 199_999 and flag["position"] == today["event"]
    # The flag is dated on the day the count is reached, not on the earlier days.
    assert structuring_flags(current_gaming_day() - timedelta(days=2)) == []


def test_visits_under_80_percent_or_at_the_threshold_do_not_count(settings, cage):
    settings.AML_BASIS = "visit"
    known = make_patron()
    now = timezone.now()
    past_purchase(known, 159_999, now - timedelta(days=3))  # just under 80 %
    past_purchase(known, 200_000, now - timedelta(days=2))  # at the threshold: identified, not structured
    chips_purchase(patron=known, amount_cents=190_000, actor=ACTOR)
    assert structuring_flags(current_gaming_day()) == []


def test_near_threshold_visits_older_than_the_window_do_not_count(settings, cage):
    settings.AML_BASIS, settings.AML_STRUCTURING_DAYS = "visit", 7
    known = make_patron()
    now = timezone.now()
    past_purchase(known, 190_000, now - timedelta(days=9))
    past_purchase(known, 190_000, now - timedelta(days=2))
    chips_purchase(patron=known, amount_cents=190_000, actor=ACTOR)
    assert structuring_flags(current_gaming_day()) == []


def test_per_gaming_day_the_units_are_days_and_redemptions_count_apart(settings, cage):
    settings.AML_BASIS = "gaming_day"
    known = make_patron()
    now = timezone.now()
    for days in (4, 1):
        past_purchase(known, 170_000, now - timedelta(days=days))
    chips_redeem(patron=known, amount_cents=95_000, actor=ACTOR)
    chips_redeem(patron=known, amount_cents=95_000, actor=ACTOR)  # one day: 1,900 EUR out
    assert structuring_flags(current_gaming_day()) == []  # one day out, and no cash in today
    chips_purchase(patron=known, amount_cents=170_000, actor=ACTOR)
    flags = structuring_flags(current_gaming_day())
    assert [(f["direction"], f["basis"], len(f["units"])) for f in flags] == [("in", "gaming_day", 3)]


def test_the_shared_anonymous_patron_is_never_flagged(settings, cage):
    settings.AML_BASIS, settings.AML_VISIT_GAP_HOURS = "visit", 0
    anon = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    for _ in range(3):
        chips_purchase(patron=anon, amount_cents=190_000, actor=ACTOR)
    assert structuring_flags(current_gaming_day()) == []
