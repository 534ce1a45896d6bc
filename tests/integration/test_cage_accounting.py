"""Cage and table accounting: inventories, fills and credits, drop count, gaming day."""

import pytest

from cashier.models import Slip
from cashier.services.cage_shifts import last_shift_event
from cashier.services.count_room import drop_box_remove, drop_count, drop_count_reverse
from cashier.services.gaming_day import gaming_day_close
from cashier.services.slips import slip_accept, slip_issue, slip_request, slip_reverse, slip_void
from games.services.bets import bet_place
from games.services.corrections import round_reverse
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in, table_close, table_open
from ledger import accounts, store
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.replay import replay_check
from staff.roles import Role, RoleRequired, grant

from ..conftest import ACTOR, CAGE_STAFF, hand_cage_to

pytestmark = pytest.mark.django_db

STAFF = CAGE_STAFF


@pytest.fixture
def staff(django_user_model):
    """The staff, and the open cashier shift (if any) handed over to ``cash1``, who issues."""
    for name, role in STAFF.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    last = last_shift_event()
    if last is not None and last.type == "CageShiftOpened":
        hand_cage_to("cash1")
    return STAFF


def tray(code="R1"):
    return store.balance(accounts.table_tray(code))


def fill(amount_denominations, *, kind="fill", table="R1"):
    serial = slip_request(kind=kind, table=table, denominations=amount_denominations, actor="pit1")["serial"]
    slip_issue(kind=kind, serial=serial, runner="run1", actor="cash1")
    if kind == "credit":  # counted in at the cage
        return slip_accept(kind=kind, serial=serial, actor="cash1", count=amount_denominations)
    return slip_accept(kind=kind, serial=serial, actor="pit2", count=amount_denominations)


def test_opener_counted_by_denomination_with_dealer_and_pit_boss(cage, staff):
    opened = table_open(
        code="R2",
        game="english_roulette",
        opener={"100000": 40, "10000": 95, "2500": 40},
        dealer="dealer1",
        pit_boss="pit1",
        actor="pit1",
    )
    assert opened["opener_cents"] == 4_000_000 + 950_000 + 100_000
    assert tray("R2") == 5_050_000
    event = Event.objects.get(position=opened["event"])
    assert event.data["denominations"] == {"2500": 40, "10000": 95, "100000": 40}
    assert (event.data["dealer"], event.data["pit_boss"]) == ("dealer1", "pit1")


@pytest.mark.parametrize(
    ("count", "message"),
    [
        ({"100000": -1}, "non-negative whole number"),
        ({"100000": 1.5}, "non-negative whole number"),
        ({"100000": "3"}, "non-negative whole number"),
        ({"700": 3}, "unknown denomination"),
        ({"abc": 3}, "unknown denomination"),
        ([1, 2], "a count is an object"),
    ],
)
def test_bad_counts_are_refused_and_nothing_appended(cage, staff, count, message):
    before = store.head()
    with pytest.raises(InvalidInput) as err:
        table_open(code="R2", game="english_roulette", opener=count, dealer="dealer1", pit_boss="pit1", actor="pit1")
    assert message in err.value.message and err.value.field == "opener"
    assert store.head() == before


def test_the_same_user_cannot_confirm_as_dealer_and_pit_boss(cage, staff, django_user_model):
    grant(django_user_model.objects.get(username="pit1"), Role.DEALER)
    with pytest.raises(RoleRequired):
        table_open(code="R2", game="english_roulette", opener={"100": 1}, dealer="pit1", pit_boss="pit1", actor="pit1")
    with pytest.raises(RoleRequired):  # a cashier is no dealer
        table_open(code="R2", game="english_roulette", opener={"100": 1}, dealer="cash1", pit_boss="pit1", actor="pit1")


def test_an_opener_off_the_last_closer_needs_a_written_explanation_recorded_in_its_event(table, staff):
    table_close(code="R1", closer={"1000000": 5}, dealer="dealer1", pit_boss="pit1", actor="pit1")
    count = {"1000000": 4, "500000": 1, "100000": 4}
    reopen = dict(code="R1", game="english_roulette", opener=count, dealer="dealer1", pit_boss="pit2", actor="pit2")
    with pytest.raises(InvalidInput) as err:
        table_open(**reopen)
    assert err.value.field == "variance_reason"
    assert "differs from the last closer by -1,000.00 EUR" in err.value.message
    with pytest.raises(InvalidInput):
        table_open(**reopen, variance_reason="   ")
    assert not Event.objects.filter(type="TableOpened", data__table="R1", data__variance_cents=-100_000).exists()
    table_open(**reopen, variance_reason=" a plaque short: found under the tray ")
    opened = Event.objects.filter(type="TableOpened", data__table="R1").latest("position")
    assert (opened.data["variance_cents"], opened.data["variance_reason"]) == (
        -100_000,
        "a plaque short: found under the tray",
    )


def test_an_opener_equal_to_the_last_closer_needs_no_explanation(table, staff):
    table_close(code="R1", closer={"1000000": 5}, dealer="dealer1", pit_boss="pit1", actor="pit1")
    opened = table_open(
        code="R1", game="english_roulette", opener={"1000000": 5}, dealer="dealer1", pit_boss="pit2", actor="pit2"
    )
    assert opened["variance_cents"] == 0
    assert "variance_reason" not in Event.objects.get(position=opened["event"]).data


def test_closer_is_the_next_opener_and_a_recount_that_differs_is_a_variance(table, staff):
    closed = table_close(code="R1", closer={"1000000": 5}, dealer="dealer1", pit_boss="pit1", actor="pit1")
    assert (closed["closer_cents"], closed["variance_cents"]) == (5_000_000, 0)
    reopened = table_open(
        code="R1",
        game="english_roulette",
        opener={"1000000": 4, "500000": 1, "100000": 4},
        dealer="dealer1",
        pit_boss="pit2",
        actor="pit2",
        variance_reason="a 1,000.00 EUR plaque missing from the tray",
    )
    assert reopened["opener_cents"] == 4_900_000
    assert reopened["variance_cents"] == -100_000
    assert tray() == 4_900_000 and store.balance(accounts.CAGE_OVER_SHORT) == 100_000
    short = table_close(
        code="R1", closer={"1000000": 4, "500000": 1, "100000": 3}, dealer="dealer1", pit_boss="pit1", actor="pit1"
    )
    assert (short["closer_cents"], short["book_tray_cents"], short["variance_cents"]) == (
        4_800_000,
        4_900_000,
        -100_000,
    )
    assert tray() == 4_800_000 and store.balance(accounts.CAGE_OVER_SHORT) == 200_000


def test_closing_a_table_with_a_coup_in_play_is_refused(table, staff):
    round_open(table="R1", actor=ACTOR)
    before = store.head()
    with pytest.raises(StateConflict, match="coup in play"):
        table_close(code="R1", closer={"1000000": 5}, dealer="dealer1", pit_boss="pit1", actor="pit1")
    assert store.head() == before


def test_fill_flow_posts_at_delivery_with_sequential_serials(table, staff):
    cage_chips = store.balance(accounts.CAGE_CHIPS)
    first = slip_request(kind="fill", table="R1", denominations={"10000": 20}, actor="pit1")
    year = current_gaming_day().year
    assert first["serial"] == f"{year}-000001" and first["amount_cents"] == 200_000
    issued = slip_issue(kind="fill", serial=first["serial"], runner="run1", actor="cash1")
    assert issued["state"] == "issued" and tray() == 5_000_000
    delivered = slip_accept(kind="fill", serial=first["serial"], actor="dealer1", count={"10000": 20})
    assert delivered["state"] == "delivered"
    assert tray() == 5_200_000 and store.balance(accounts.CAGE_CHIPS) == cage_chips - 200_000
    second = slip_request(kind="fill", table="R1", denominations={"500": 2}, actor="pit1")
    assert second["serial"] == f"{year}-000002"
    credit = slip_request(kind="credit", table="R1", denominations={"500": 2}, actor="pit1")
    assert credit["serial"] == f"{year}-000001"  # fills and credits: one series each
    types = list(Event.objects.filter(stream=f"slip/fill/{first['serial']}").values_list("type", flat=True))
    assert types == ["FillRequested", "FillIssued", "FillDelivered"]


def test_the_issuer_cannot_accept_a_fill(table, staff, django_user_model):
    grant(django_user_model.objects.get(username="cash1"), Role.PIT_BOSS)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 1}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    before = store.head()
    with pytest.raises(RoleRequired, match="already the issuer"):
        slip_accept(kind="fill", serial=serial, actor="cash1")
    assert store.head() == before and tray() == 5_000_000


def test_the_runner_is_neither_requester_nor_issuer(table, staff, django_user_model):
    grant(django_user_model.objects.get(username="pit1"), Role.RUNNER)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 1}, actor="pit1")["serial"]
    with pytest.raises(RoleRequired, match="already the requester"):
        slip_issue(kind="fill", serial=serial, runner="pit1", actor="cash1")
    with pytest.raises(RoleRequired, match="needs the role runner"):
        slip_issue(kind="fill", serial=serial, runner="dealer1", actor="cash1")
    with pytest.raises(RoleRequired, match="needs the role cashier"):
        slip_issue(kind="fill", serial=serial, runner="run1", actor="pit2")


def test_a_credit_larger_than_the_tray_is_refused(table, staff):
    before = store.head()
    with pytest.raises(InsufficientChips, match="more than the tray"):
        slip_request(kind="credit", table="R1", denominations={"1000000": 6}, actor="pit1")
    assert store.head() == before
    fill({"1000000": 2}, kind="credit")
    assert tray() == 3_000_000


def test_a_reversed_fill_restores_both_balances_and_both_events_stay(table, staff):
    cage_chips = store.balance(accounts.CAGE_CHIPS)
    serial = fill({"10000": 30})["serial"]
    assert tray() == 5_300_000
    with pytest.raises(RoleRequired):  # a cashier cannot approve a reversal
        slip_reverse(kind="fill", serial=serial, reason="wrong table", approver="cash1", actor="pit1")
    with pytest.raises(RoleRequired):  # nor can the signer approve his own
        slip_reverse(kind="fill", serial=serial, reason="wrong table", approver="pit1", actor="pit1")
    reversed_ = slip_reverse(kind="fill", serial=serial, reason="wrong table", approver="super1", actor="pit1")
    assert tray() == 5_000_000 and store.balance(accounts.CAGE_CHIPS) == cage_chips
    delivered = Event.objects.get(stream=f"slip/fill/{serial}", type="FillDelivered")
    reversal = Event.objects.get(stream=f"slip/fill/{serial}", type="FillReversed")
    assert reversal.data["reverses"] == delivered.position == reversed_["reverses"]
    assert reversal.causation_id == str(delivered.position)
    assert Slip.objects.get(serial=serial, kind="fill").state == "reversed"
    with pytest.raises(StateConflict):
        slip_reverse(kind="fill", serial=serial, reason="again", approver="super1", actor="pit1")
    assert replay_check() == []  # the slip's state and version replay from its events


def test_a_voided_slip_needs_a_reason_and_two_signatures_and_stays_listed(table, staff):
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 1}, actor="pit1")["serial"]
    with pytest.raises(InvalidInput):
        slip_void(confirmation="VOID", kind="fill", serial=serial, reason=" ", approver="pit2", actor="pit1")
    with pytest.raises(RoleRequired):
        slip_void(confirmation="VOID", kind="fill", serial=serial, reason="typo", approver="pit1", actor="pit1")
    voided = slip_void(confirmation="VOID", kind="fill", serial=serial, reason="typo", approver="pit2", actor="pit1")
    assert voided["state"] == "voided"
    assert Slip.objects.filter(kind="fill").count() == 1
    with pytest.raises(StateConflict):
        slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")


def test_drop_count_moves_the_cash_to_the_cage_and_the_difference_to_over_short(table, staff, patron):
    day = current_gaming_day().isoformat()
    table_buy_in(code="R1", patron=patron, amount_cents=50_000, actor=ACTOR)
    table_buy_in(code="R1", patron=patron, amount_cents=20_000, actor=ACTOR)
    with pytest.raises(StateConflict, match="not been removed"):
        drop_count(table="R1", gaming_day=day, cash={"10000": 7}, counters=["count1", "count2"], actor="count1")
    assert (
        drop_box_remove(table="R1", gaming_day=day, actor="drop1", removers=["drop1", "drop2"])["expected_cents"]
        == 70_000
    )
    cash = store.balance(accounts.CAGE_CASH)
    with pytest.raises(RoleRequired):
        drop_count(table="R1", gaming_day=day, cash={"10000": 7}, counters=["count1", "count1"], actor="count1")
    with pytest.raises(InvalidInput):
        drop_count(table="R1", gaming_day=day, cash={"10000": 7}, counters=["count1"], actor="count1")
    counted = drop_count(
        table="R1",
        gaming_day=day,
        cash={"10000": 6, "5000": 1, "1000": 4},
        counters=["count1", "count2"],
        actor="count2",
    )
    assert (counted["counted_cents"], counted["expected_cents"], counted["variance_cents"]) == (69_000, 70_000, -1_000)
    assert store.balance(accounts.table_drop("R1")) == 0
    assert store.balance(accounts.CAGE_CASH) == cash + 69_000
    assert store.balance(accounts.CAGE_OVER_SHORT) == 1_000
    with pytest.raises(StateConflict, match="already counted"):
        drop_count(table="R1", gaming_day=day, cash={"10000": 7}, counters=["count1", "count2"], actor="count1")
    drop_count_reverse(table="R1", gaming_day=day, reason="miscount", approver="pit1", actor="count1")
    assert store.balance(accounts.table_drop("R1")) == 70_000 and store.balance(accounts.CAGE_OVER_SHORT) == 0
    recount = drop_count(table="R1", gaming_day=day, cash={"10000": 7}, counters=["count2", "count1"], actor="count1")
    assert recount["variance_cents"] == 0


def test_a_gaming_day_closes_once_its_tables_are_closed_and_counted(table, staff):
    day = current_gaming_day().isoformat()
    with pytest.raises(StateConflict, match="still open: R1"):
        gaming_day_close(gaming_day=day, actor="pit1")
    table_close(code="R1", actor=ACTOR)
    with pytest.raises(StateConflict, match="not counted at R1"):
        gaming_day_close(gaming_day=day, actor="pit1")
    drop_box_remove(table="R1", gaming_day=day, actor="drop1", removers=["drop1", "drop2"])
    drop_count(table="R1", gaming_day=day, cash={}, counters=["count1", "count2"], actor="count1")
    closed = gaming_day_close(gaming_day=day, actor="pit1")
    assert closed["tables"] == ["R1"]
    # The close hands the day to ledger.seal, which signs it in its own transaction after.
    assert closed["sealed"]["event"] == closed["event"] + 1
    assert Event.objects.get(position=closed["sealed"]["event"]).type == "GamingDaySealed"
    before = store.head()
    with pytest.raises(StateConflict, match="already closed") as err:
        gaming_day_close(gaming_day=day, actor="super1")
    assert err.value.status == 409 and store.head() == before


def test_a_reversed_coup_restores_the_patron_and_the_tray_and_both_events_stay(table, staff, patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet = {"type": "chance_simple", "chance": "pair"}
    bet_place(round_id=coup, patron=patron, stake_cents=10_000, bet=bet, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)  # even money: the tray pays 100 EUR
    assert store.balance(accounts.patron_chips(patron)) == 110_000 and tray() == 4_990_000
    before = store.head()
    with pytest.raises(RoleRequired):  # a cashier cannot sign a coup's reversal
        round_reverse(round_id=coup, reason="wrong number announced", approver="pit2", actor="cash1")
    assert store.head() == before
    reversed_ = round_reverse(round_id=coup, reason="wrong number announced", approver="super1", actor="pit1")
    assert store.balance(accounts.patron_chips(patron)) == 100_000 and tray() == 5_000_000
    assert reversed_["legs"] == {accounts.patron_chips(patron): -10_000, accounts.table_tray("R1"): 10_000}
    types = list(Event.objects.filter(stream=f"round/{coup}").values_list("type", flat=True))
    assert types[-1] == "RoundReversed" and "BetSettled" in types and "BetPlaced" in types
    with pytest.raises(StateConflict, match="already reversed"):
        round_reverse(round_id=coup, reason="again", approver="super1", actor="pit1")
    assert replay_check() == []


def test_cash_and_chip_movements_are_refused_while_no_cashier_shift_is_open(cage_float, staff):
    """No chip moves without a cashier shift open (a chip sale once did). Sales, redemptions and slip
    issues move the cage's cash or chips: each is refused (409, field ``shift``) and the ledger
    gets nothing, before the first shift and again after the last one closed."""
    from cashier.services.cage import chips_purchase, chips_redeem
    from cashier.services.cage_shifts import cage_shift_close

    from ..conftest import drawer_count, make_patron, open_cage_shift

    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 5}, actor="pit1")["serial"]
    with pytest.raises(StateConflict, match="no cashier window is open"):
        make_patron(50_000)  # before the first window
    window = open_cage_shift("cash1")["window"]
    patron = make_patron(50_000)  # bought while a window is open (the system's step: the main bank)
    cage_shift_close(**drawer_count(window), actor="cash1")
    for attempt in (
        lambda: chips_purchase(patron=patron, amount_cents=10_000, actor="cash1"),
        lambda: chips_redeem(patron=patron, amount_cents=10_000, actor="cash1"),
        lambda: slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1"),
    ):
        before = Event.objects.count()
        with pytest.raises(StateConflict) as refused:
            attempt()
        assert refused.value.field == "shift" and "no cashier window is open" in refused.value.message
        assert Event.objects.count() == before
    assert store.balance(accounts.CAGE_CASH) == 10_050_000 and Slip.objects.get(serial=serial).state == "requested"


def test_the_daily_report_lists_each_tables_voids_and_reversals_of_the_day(table, staff, client, django_user_model):
    from cashier.reports import corrections_by_table, table_games_daily_report
    from games.services.rounds import round_void

    assert corrections_by_table(current_gaming_day()) == []
    settled = round_open(table="R1", actor="pit1")["round"]
    round_close_bets(round_id=settled, actor="pit1")
    round_record_result(round_id=settled, number=7, actor="pit1")
    round_reverse(round_id=settled, reason="wrong number", approver="pit2", actor="pit1")
    voided = round_open(table="R1", actor="pit1")["round"]
    round_void(round_id=voided, reason="ball left the wheel", actor="pit1")
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 1}, actor="pit1")["serial"]
    slip_void(confirmation="VOID", kind="fill", serial=serial, reason="typo", approver="pit2", actor="pit1")
    for _ in range(2):
        serial = fill({"10000": 3})["serial"]
        slip_reverse(kind="fill", serial=serial, reason="wrong table", approver="super1", actor="pit1")

    day = current_gaming_day()
    expected = {
        "table": "R1",
        "coups_voided": 1,
        "coups_reversed": 1,
        "slips_voided": 1,
        "slips_reversed": 2,
        "drop_counts_reversed": 0,
    }
    assert corrections_by_table(day) == [expected]
    assert table_games_daily_report(day)["corrections"] == [expected]

    grant(django_user_model.objects.create_user(username="aud1", password="x"), Role.AUDITOR)
    client.force_login(django_user_model.objects.get(username="aud1"))
    page = client.get(f"/workstations/reports/table-games/?gaming_day={day.isoformat()}").content.decode()
    row = page.split('data-section="corrections"')[1].split('<tr data-table="R1">')[1].split("</tr>")[0]
    cells = [cell.split(">")[-1] for cell in row.replace("</a>", "").split("</td>")[:-1]]
    assert cells == ["1", "1", "1", "2", "0"]
    assert f"gaming_day={day.isoformat()}&amp;table=R1&amp;type=FillReversed%2CCreditReversed" in row
