"""Comps: a rated patron earns the reinvestment rate of his theoretical win; each comp given is
an event (``patron:<P>:comps`` +X, ``comps:owed`` −X) within what he has available, and one
given in error is reversed by a new event with its reason, never edited.

The patron is rated by hand at English roulette: 60 minutes at 35 decisions an hour and an
average bet of 37.00 EUR is 35 bets, 129,500 cents staked; the rating records the table's edge
to six places, 0.027027, so his theoretical win is 129,500 × 0.027027 = 3,499.9965 cents, and
at the default 25.00 % he earns 874.999… cents, rounded down: 8.74 EUR of comps.
"""

import pytest

from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.models import Event, Posting
from ledger.verify import verify_chain
from patrons.services.comps import comp_balance, comp_give, comp_reverse, comps_given
from staff.roles import RoleRequired
from tests.conftest import client_as, rated_by_hand, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated(table):
    """An identified patron rated by hand at R1 for 35 bets of 37.00 EUR (``rated_by_hand``)."""
    staff_user("boss", "pit_boss")
    staff_user("till", "cashier")
    return rated_by_hand("boss")


def _postings(position: int) -> set[tuple[str, int]]:
    return {(p.account, p.amount_cents) for p in Posting.objects.filter(event__position=position)}


def test_a_patron_earns_the_reinvestment_rate_of_his_theoretical_win(rated, settings):
    assert comp_balance(rated) == {
        "patron": rated,
        "rate_basis_points": 2_500,
        "theoretical_win_cents": 3_499,
        "earned_cents": 874,
        "given_cents": 0,
        "available_cents": 874,
    }
    settings.CASINO_COMP_REINVESTMENT_BASIS_POINTS = 4_000  # 3,499.9965 × 40 % = 1,399.9986: rounded down
    assert comp_balance(rated)["earned_cents"] == 1_399


def test_a_comp_given_is_an_event_that_books_its_cost_and_lowers_what_is_available(rated):
    result = comp_give(patron=rated, kind="meal", amount_cents=500, note="dinner for two", actor="boss")
    assert (result["amount_cents"], result["available_cents"]) == (500, 374)
    event = Event.objects.get(position=result["event"])
    assert (event.stream, event.type, event.actor) == (f"comps/{rated}", "CompGiven", "boss")
    assert event.data == {
        "patron": rated,
        "kind": "meal",
        "amount_cents": 500,
        "note": "dinner for two",
        "rate_basis_points": 2_500,
        "earned_cents": 874,
        "given_before_cents": 0,
    }
    assert _postings(event.position) == {(f"patron:{rated}:comps", 500), ("comps:owed", -500)}
    assert comp_balance(rated)["given_cents"] == 500
    assert [(c["kind_label"], c["amount_cents"], c["by"]) for c in comps_given(rated)] == [("Meal", 500, "boss")]


def test_a_comp_above_what_he_has_available_is_refused_and_writes_nothing(rated):
    comp_give(patron=rated, kind="show", amount_cents=500, actor="boss")
    before = Event.objects.count()
    with pytest.raises(InvalidInput) as refused:
        comp_give(patron=rated, kind="room", amount_cents=375, actor="boss")
    assert refused.value.field == "amount_cents"
    assert "3.74" in refused.value.message
    assert Event.objects.count() == before


@pytest.mark.parametrize(
    ("change", "error", "field"),
    [
        ({"kind": "cash"}, InvalidInput, "kind"),
        ({"amount_cents": 0}, InvalidInput, "amount_cents"),
        ({"amount_cents": 1.5}, InvalidInput, "amount_cents"),
        ({"patron": "anon"}, InvalidInput, "patron"),
        ({"patron": "P99999"}, InvalidInput, "patron"),
        ({"note": "x" * 201}, InvalidInput, "note"),
        ({"actor": "till"}, RoleRequired, None),
    ],
)
def test_a_wrong_comp_is_refused_naming_what_is_wrong(rated, change, error, field):
    before = Event.objects.count()
    arguments = {"patron": rated, "kind": "meal", "amount_cents": 100, "actor": "boss"} | change
    with pytest.raises(error) as refused:
        comp_give(**arguments)
    assert refused.value.field == field
    assert Event.objects.count() == before


def test_a_comp_given_in_error_is_reversed_once_with_its_reason(rated):
    given = comp_give(patron=rated, kind="travel", amount_cents=600, actor="boss")["event"]
    with pytest.raises(InvalidInput) as no_reason:
        comp_reverse(patron=rated, event=given, reason="  ", actor="boss")
    assert no_reason.value.field == "reason"
    done = comp_reverse(patron=rated, event=given, reason="wrong patron", actor="boss")
    reversal = Event.objects.get(position=done["event"])
    assert (reversal.type, reversal.causation_id, reversal.data["reverses"]) == ("CompReversed", str(given), given)
    assert _postings(reversal.position) == {(f"patron:{rated}:comps", -600), ("comps:owed", 600)}
    assert comp_balance(rated)["available_cents"] == 874
    assert comps_given(rated)[0]["reversed"] == "wrong patron"
    with pytest.raises(StateConflict):
        comp_reverse(patron=rated, event=given, reason="again", actor="boss")
    with pytest.raises(NotFound):
        comp_reverse(patron=rated, event=reversal.position, reason="not a comp", actor="boss")
    assert verify_chain().ok


def test_the_comps_api_reads_for_the_cage_and_gives_for_the_pit(rated, django_user_model):
    desk = client_as(django_user_model.objects.get(username="till"))
    boss = client_as(django_user_model.objects.get(username="boss"))
    read = desk.get(f"/api/patrons/{rated}/comps")
    assert read.status_code == 200
    assert (read.json()["earned_cents"], read.json()["available_cents"], read.json()["comps"]) == (874, 874, [])
    comp = {"kind": "meal", "amount_cents": 100}
    assert desk.post(f"/api/patrons/{rated}/comps", comp, format="json").status_code == 403
    refused = boss.post(f"/api/patrons/{rated}/comps", {**comp, "amount_cents": 1.5}, format="json")
    assert (refused.status_code, refused.json()["field"]) == (400, "amount_cents")
    too_much = boss.post(f"/api/patrons/{rated}/comps", {**comp, "amount_cents": 875}, format="json")
    assert (too_much.status_code, too_much.json()["field"]) == (400, "amount_cents")
    given = boss.post(f"/api/patrons/{rated}/comps", {**comp, "amount_cents": 874}, format="json")
    assert (given.status_code, given.json()["available_cents"]) == (201, 0)
    path = f"/api/patrons/{rated}/comps/{given.json()['event']}/reverse"
    assert boss.post(path, {"reason": "kitchen closed"}, format="json").status_code == 201
    assert boss.post(path, {"reason": "kitchen closed"}, format="json").status_code == 409
    assert desk.get(f"/api/patrons/{rated}/comps").json()["comps"][0]["reversed"] == "kitchen closed"
