"""The pit boss's forms through Django's test client, each person logged in as himself: a table
opened by a counted opener the dealer confirms from his own session, limits changed and
recorded, a fill requested → issued by the cashier → confirmed by the runner on his page →
accepted by a second pit boss, a coup reversed once the second pit boss approves it, a patron
rated by hand, the table closed. A refused entry keeps what was typed and names the field."""

import re
from datetime import timedelta
from html import unescape
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from approvals.models import Approval
from approvals.services import approval_request
from cashier.slip_models import Slip
from games.models import Table
from games.services import ratings
from ledger.errors import InvalidInput
from ledger.models import Event
from staff.roles import Role
from tests.conftest import SHIFT_CASHIER, staff_user

pytestmark = pytest.mark.django_db


def logged_in(username: str, *roles: str) -> Client:
    client = Client()
    client.force_login(staff_user(username, *roles))
    return client


def text(response) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@pytest.fixture
def people(cage):
    return {
        "boss": logged_in("boss", Role.PIT_BOSS, Role.ADMIN),  # may set up a new table
        "boss2": logged_in("boss2", Role.PIT_BOSS),
        "dealer": logged_in("dealer1", Role.DEALER),
        "runner": logged_in("run1", Role.RUNNER),
    }


def open_r5(people) -> None:
    boss, dealer = people["boss"], people["dealer"]
    sent = boss.post(
        reverse("dashboard:open"),
        {
            "code": "new",
            "new_code": "R5",
            "game": "english_roulette",
            "dealer": "dealer1",
            "opener-100000": "40",
            "opener-10000": "100",
        },
    )
    assert sent.status_code == 302
    assert not Table.objects.filter(code="R5", state="open").exists()  # the dealer has not confirmed yet
    queue = dealer.get(reverse("dashboard:approvals"))
    assert "Open table R5 (English roulette) with an opener of 50,000.00 EUR" in text(queue)
    approval = Approval.objects.get(kind="table_open_counted", state="pending")
    assert dealer.post(reverse("dashboard:approve", args=[approval.id])).status_code == 302
    assert Table.objects.get(code="R5").state == "open"


def test_a_table_opens_once_the_dealer_confirms_from_his_own_login(people):
    open_r5(people)
    opened = Event.objects.get(type="TableOpened", data__table="R5")
    assert opened.data["opener_cents"] == 5_000_000
    assert (opened.data["dealer"], opened.data["pit_boss"], opened.actor) == ("dealer1", "boss", "boss")


def test_a_refused_opener_keeps_what_was_typed_and_names_the_field(people):
    sent = {"code": "new", "new_code": "R6", "game": "english_roulette", "dealer": "dealer1", "opener-10000": "x3"}
    page = people["boss"].post(reverse("dashboard:open"), sent)
    assert page.status_code == 400
    html = page.content.decode()
    assert "Refused — <strong>Opener count</strong>: pieces of 100.00 EUR are a whole number" in html
    assert 'name="opener-10000" inputmode="numeric" pattern="[0-9]*" autocomplete="off" value="x3"' in html
    assert 'value="R6"' in html and '<option value="english_roulette" selected>' in html
    assert not Approval.objects.exists()


def test_an_opener_with_no_dealer_named_is_refused_naming_the_dealer_and_waits_for_nobody(people):
    """A blank dealer would leave an approval waiting for a signer nobody can be."""
    sent = {"code": "new", "new_code": "R9", "game": "english_roulette", "dealer": "", "opener-10000": "5"}
    page = people["boss"].post(reverse("dashboard:open"), sent)
    assert page.status_code == 400
    assert "Refused — <strong>Dealer</strong>: may not be blank" in page.content.decode()
    assert not Approval.objects.exists()
    assert not Event.objects.filter(type="ApprovalRequested").exists()


def test_the_open_form_offers_the_closed_tables_only_and_refuses_a_table_the_floor_does_not_have(people):
    """A made-up "B2" typed in the table field once became a live table: a pit boss chooses among
    the floor's closed tables; a new table is for one who may also set the floor up (admin)."""
    from games.services.tables import table_close, table_open

    table_open(code="R3", game="english_roulette", opener_cents=1_000_000, actor="boss", rules={})
    table_close(code="R3", actor="boss")
    pit_boss_only = people["boss2"]
    form = pit_boss_only.get(reverse("dashboard:open")).content.decode()
    assert '<option value="R3">R3 · English roulette · house edge 2.70 %, even chances 1.35 %</option>' in form
    assert "A new table" not in form and 'name="new_code"' not in form
    made_up = {"code": "B2", "dealer": "dealer1", "opener-10000": "5"}
    refused = pit_boss_only.post(reverse("dashboard:open"), made_up)
    assert refused.status_code == 400
    assert (
        "Refused — <strong>Table</strong>: there is no table B2 on the floor: choose one of the closed tables"
        in refused.content.decode()
    )
    new = pit_boss_only.post(
        reverse("dashboard:open"), made_up | {"code": "new", "new_code": "B2", "game": "blackjack"}
    )
    assert new.status_code == 403 and "a new table is set up by an administrator" in new.content.decode()
    assert not Table.objects.filter(code="B2").exists() and not Approval.objects.exists()
    assert '<option value="new">A new table…</option>' in people["boss"].get(reverse("dashboard:open")).content.decode()
    # A closed table opens with its own game, whatever the form says.
    chosen = pit_boss_only.post(
        reverse("dashboard:open"), made_up | {"code": "R3", "game": "blackjack", "variance_reason": "a recount"}
    )
    assert chosen.status_code == 302
    assert Approval.objects.get(kind="table_open_counted").payload["game"] == "english_roulette"


def test_limits_change_within_the_rule_set_and_are_recorded(people):
    open_r5(people)
    boss = people["boss"]
    response = boss.post(reverse("dashboard:limits", args=["R5"]), {"max_bet_cents": "250"}, follow=True)
    changed = Event.objects.get(type="TableRulesChanged")
    before = f"{changed.data['before']['max_bet_cents'] // 100:,}.00 EUR"
    assert f"Limits of R5 changed and recorded: Maximum, numbers {before} → 250.00 EUR." in text(response)
    assert changed.data["after"]["max_bet_cents"] == 25_000 and changed.actor == "boss"
    refused = boss.post(reverse("dashboard:limits", args=["R5"]), {"min_bet_cents": "1,5,0"})
    assert refused.status_code == 400
    assert "Refused — <strong>Minimum, numbers</strong>: &quot;1,5,0&quot; is not an amount" in refused.content.decode()
    assert 'value="1,5,0"' in refused.content.decode()


def test_limits_outside_the_houses_approved_range_are_refused_in_a_sentence_naming_the_field(people):
    """A pit boss once set 0.50 to 500,000.00 EUR at a table: each end is refused on its own
    field, in words (never a Python name such as "Rules.min bet"), and nothing is recorded."""
    open_r5(people)
    boss, url = people["boss"], reverse("dashboard:limits", args=["R5"])
    page = text(boss.get(reverse("dashboard:table", args=["R5"])))
    assert "Within the house's approved range for English roulette: from 1.00 EUR" in page
    assert "to 10,000.00 EUR." in page
    over = boss.post(url, {"max_bet_cents": "500000"})
    assert over.status_code == 400
    assert (
        "Refused — <strong>Maximum, numbers</strong>: 500,000.00 EUR is over the house's maximum of 10,000.00 EUR "
        "for English roulette tables." in unescape(over.content.decode())
    )
    assert (
        'name="max_bet_cents" inputmode="decimal" size="9" autocomplete="off" value="500000" aria-invalid="true"'
        in (over.content.decode())
    )
    under = boss.post(url, {"min_bet_cents": "0.50"})
    assert under.status_code == 400
    assert (
        "Refused — <strong>Minimum, numbers</strong>: 0.50 EUR is under the house's lowest limit of 1.00 EUR"
        in unescape(under.content.decode())
    )
    crossed = unescape(boss.post(url, {"min_bet_cents": "200", "max_bet_cents": "100"}).content.decode())
    assert "Refused — <strong>Minimum, numbers</strong>: the minimum is above the maximum." in crossed
    assert "Rules." not in crossed
    assert not Event.objects.filter(type="TableRulesChanged").exists()


def test_the_approved_range_is_the_services_own_rule_at_open_and_at_a_change(people):
    """The API refuses what the page refuses: 400 naming the option (``rules.max_bet_cents``),
    whether the limits come with the opening or with a change; a baccarat table's minimum may
    not be under its own smallest chip."""
    from games.services.table_rules import table_rules_change
    from games.services.tables import table_open
    from ledger.errors import InvalidInput

    with pytest.raises(InvalidInput) as opened:
        table_open(
            code="B7", game="blackjack", opener_cents=1_000_000, actor="boss", rules={"max_box_cents": 50_000_000}
        )
    assert opened.value.field == "rules.max_box_cents"
    with pytest.raises(InvalidInput) as chip:
        table_open(code="P7", game="baccarat", opener_cents=1_000_000, actor="boss", rules={"min_bet_cents": 50})
    assert (chip.value.field, chip.value.message) == (
        "rules.min_bet_cents",
        "0.50 EUR is under the table's smallest chip of 1.00 EUR: a bet that small cannot be made of its chips",
    )
    open_r5(people)
    with pytest.raises(InvalidInput) as changed:
        table_rules_change(code="R5", rules={"even_chance_max_cents": 2_000_000}, actor="boss")
    assert changed.value.field == "rules.even_chance_max_cents"
    assert not Table.objects.filter(code__in=["B7", "P7"]).exists()


def test_a_classic_stud_tables_limits_are_changed_on_its_page_in_money(people):
    """Classic stud's limits (a base stake, the most in each of four rounds) are typed in money
    like any table's; the rule set keeps the rounds as multiples of the base stake."""
    from games.services.tables import table_open

    table_open(code="S5", game="classic_stud", opener_cents=1_000_000, actor="boss", rules={"base_stake_cents": 200})
    boss, url = people["boss"], reverse("dashboard:limits", args=["S5"])
    page = boss.get(reverse("dashboard:table", args=["S5"])).content.decode()
    assert "change them through the API" not in page
    assert 'id="limit-base_stake_cents" name="base_stake_cents"' in page
    assert (
        'id="limit-round_4_cap_cents" name="round_4_cap_cents" inputmode="decimal" size="9" '
        'autocomplete="off" value="160"' in page
    )
    odd = boss.post(url, {"round_1_cap_cents": "25"})
    assert odd.status_code == 400
    assert "Refused — <strong>Most in round 1</strong>: a whole number of base stakes (2.00 EUR each)" in unescape(
        odd.content.decode()
    )
    done = boss.post(
        url,
        {
            "base_stake_cents": "5",
            "round_1_cap_cents": "50",
            "round_2_cap_cents": "100",
            "round_3_cap_cents": "200",
            "round_4_cap_cents": "400",
        },
        follow=True,
    )
    assert (
        "Limits of S5 changed and recorded: Base stake 2.00 EUR → 5.00 EUR, Most in round 1 20.00 EUR → 50.00 EUR"
        in text(done)
    )
    after = Event.objects.get(type="TableRulesChanged").data["after"]
    assert (after["base_stake_cents"], after["caps"]) == (500, [10, 20, 40, 80])
    too_much = boss.post(url, {"round_4_cap_cents": "20000"})
    assert (
        "Refused — <strong>Most in a round</strong>: a round's most of 20,000.00 EUR is over the house's maximum"
        in unescape(too_much.content.decode())
    )


def test_a_fill_travels_from_the_request_to_the_table_each_step_by_its_own_person(people):
    open_r5(people)
    boss, boss2, runner = people["boss"], people["boss2"], people["runner"]
    assert (
        boss.post(reverse("dashboard:slip-request", args=["R5"]), {"kind": "fill", "slip-10000": "5"}).status_code
        == 302
    )
    slip = Slip.objects.get()
    assert (slip.state, slip.amount_cents) == ("requested", 50_000)
    page = text(boss.get(reverse("dashboard:table", args=["R5"])))
    assert f"Fill {slip.serial} 500.00 EUR 5 × 100.00 EUR requested, waiting for the cage to prepare it" in page
    # The cage issues it to the runner (the cage page's own form), the runner confirms on his page.
    approval_request(
        kind="slip_issue", payload={"kind": "fill", "serial": slip.serial, "runner": "run1"}, actor=SHIFT_CASHIER
    )
    mine = text(runner.get(reverse("workstations:runner")))
    assert f"Fill {slip.serial} From the cage to table R5 500.00 EUR" in mine
    approval = Approval.objects.get(kind="slip_issue")
    confirmed = runner.post(reverse("workstations:runner-confirm", args=[approval.id]), follow=True)
    assert f"You carry fill {slip.serial} of 500.00 EUR to table R5" in text(confirmed)
    # The requester cannot accept it; the second pit boss counts it and does.
    counted = {f"accept-{slip.serial}-10000": "5"}
    own = boss.post(reverse("dashboard:slip-accept", args=["R5", "fill", slip.serial]), counted)
    assert own.status_code == 403 and "Nothing was recorded" in text(own)
    accepted = boss2.post(reverse("dashboard:slip-accept", args=["R5", "fill", slip.serial]), counted, follow=True)
    assert f"Fill {slip.serial} of 500.00 EUR accepted at table R5" in text(accepted)
    slip.refresh_from_db()
    assert (slip.state, slip.requested_by, slip.issued_by, slip.runner, slip.accepted_by) == (
        "delivered",
        "boss",
        SHIFT_CASHIER,
        "run1",
        "boss2",
    )


def test_the_runners_page_says_a_credit_goes_from_its_table_to_the_cage_and_a_fill_the_other_way(people):
    open_r5(people)
    runner = people["runner"]
    serials = {}
    for kind in ("fill", "credit"):
        people["boss"].post(reverse("dashboard:slip-request", args=["R5"]), {"kind": kind, "slip-10000": "2"})
        serials[kind] = Slip.objects.get(kind=kind).serial
        approval_request(
            kind="slip_issue", payload={"kind": kind, "serial": serials[kind], "runner": "run1"}, actor=SHIFT_CASHIER
        )
    to_sign = text(runner.get(reverse("workstations:runner")))
    assert f"Credit {serials['credit']} From table R5 to the cage 200.00 EUR" in to_sign
    assert f"Fill {serials['fill']} From the cage to table R5 200.00 EUR" in to_sign
    assert "To table" not in to_sign
    for approval in Approval.objects.filter(kind="slip_issue"):
        runner.post(reverse("workstations:runner-confirm", args=[approval.id]))
    carrying = text(runner.get(reverse("workstations:runner")))
    carrying = carrying[carrying.index("You carry (2)") :]
    assert f"Credit {serials['credit']} From table R5 to the cage 200.00 EUR" in carrying
    assert f"Fill {serials['fill']} From the cage to table R5 200.00 EUR" in carrying


def test_a_coup_is_reversed_once_the_second_pit_boss_approves_it_from_his_queue(people, played):
    boss, boss2 = people["boss"], people["boss2"]
    _, coup = played
    refused = boss.post(reverse("dashboard:coup-reversal", args=[coup]), {"reason": "", "approver": "boss2"})
    assert refused.status_code == 400 and "Refused — <strong>Reason</strong>" in refused.content.decode()
    asked = boss.post(reverse("dashboard:coup-reversal", args=[coup]), {"reason": "ball misread", "approver": "boss2"})
    assert asked.status_code == 302
    page = boss2.get(reverse("dashboard:approvals")).content.decode()
    queue = text(boss2.get(reverse("dashboard:approvals")))
    assert "Reverse coup 1 at table R1: “ball misread” the coup's audit trail" in queue
    assert f'href="{reverse("dashboard:coup-audit", args=[coup])}"' in page  # read before he signs
    approval = Approval.objects.get(kind="round_reverse")
    done = boss2.post(reverse("dashboard:approve", args=[approval.id]), follow=True)
    assert "Approved and done: Reverse coup 1 at table R1" in text(done)
    assert Event.objects.filter(type="RoundReversed").count() == 1


def test_a_reversed_coup_reads_reversed_with_who_and_when_and_offers_no_second_correction(people, played):
    boss, boss2 = people["boss"], people["boss2"]
    _, coup = played
    boss.post(reverse("dashboard:coup-reversal", args=[coup]), {"reason": "ball misread", "approver": "boss2"})
    boss2.post(reverse("dashboard:approve", args=[Approval.objects.get(kind="round_reverse").id]))
    reversed_at = Event.objects.get(type="RoundReversed").occurred_at.astimezone(ZoneInfo("Europe/Paris"))
    said = f"reversed by boss, approved by boss2, at {reversed_at:%H:%M} {reversed_at.tzname()}"
    audit = text(boss.get(reverse("dashboard:coup-audit", args=[coup])))
    assert f"{said} (“ball misread”)" in audit
    assert "Correct this coup" not in audit and "Ask to reverse the coup" not in audit
    table = text(boss.get(reverse("dashboard:table", args=["R1"])))
    assert said in table


def hours_ago(minutes: int) -> str:
    """The time of day ``minutes`` ago in the casino's zone, as the form takes it (``"21:05"``)."""
    return (timezone.localtime(timezone.now(), ZoneInfo("Europe/Paris")) - timedelta(minutes=minutes)).strftime("%H:%M")


def test_a_patron_is_rated_by_hand_at_the_table(people, played):
    patron, _ = played
    boss = people["boss"]
    sent = {"patron": patron, "time_in": hours_ago(60), "minutes": "45", "average_bet": "25", "buy_in": "500"}
    page = boss.post(reverse("dashboard:rating", args=["R1"]), sent, follow=True)
    assert f"Rating recorded for Test Patron ({patron}): 45 min, average bet 25.00 EUR." in text(page)
    rated = Event.objects.get(type="PatronRatedManually")
    assert (rated.data["average_bet_cents"], rated.data["buy_in_cents"], rated.data["minutes"]) == (2_500, 50_000, 45)
    bad = boss.post(reverse("dashboard:rating", args=["R1"]), sent | {"minutes": "0"})
    assert bad.status_code == 400 and "Refused — <strong>Time played</strong>" in bad.content.decode()


def test_a_rating_by_hand_that_would_end_after_now_is_refused_on_the_time_in(people, played):
    """In at 22:20 for 15 minutes, typed at 22:33, ends at 22:35: play still to come is not rated."""
    patron, _ = played
    sent = {"patron": patron, "time_in": hours_ago(13), "minutes": "15", "average_bet": "25"}
    page = people["boss"].post(reverse("dashboard:rating", args=["R1"]), sent)
    assert page.status_code == 400
    html = unescape(page.content.decode())
    assert f"Refused — <strong>Time in</strong>: in at {sent['time_in']} and 15 minutes played end at " in html
    assert "later than now" in html
    assert 'name="time_in" size="6" required value="' + sent["time_in"] + '" aria-invalid="true"' in html
    assert not Event.objects.filter(type="PatronRatedManually").exists()


def test_a_rating_is_started_when_the_patron_sits_and_stopped_with_the_time_measured(people, played, monkeypatch):
    """Start: ``RatingStarted``; stop with his average bet: ``PatronRatedManually`` from the start
    to now in whole minutes, naming the start it ends; a second start while one runs, or a stop
    with none running, is refused on the patron."""
    patron, _ = played
    boss = people["boss"]
    started = boss.post(reverse("dashboard:rating-start", args=["R1"]), {"patron": patron}, follow=True)
    assert f"Rating started for Test Patron ({patron}): stop it when he leaves." in text(started)
    assert "Being timed" in text(started) and f"Stop rating of Test Patron ({patron})" in text(started)
    again = boss.post(reverse("dashboard:rating-start", args=["R1"]), {"patron": patron})
    assert again.status_code == 409 and "Refused — <strong>Patron</strong>: his rating at R1 runs since" in (
        again.content.decode()
    )
    start = Event.objects.get(type="RatingStarted")
    assert (start.stream, start.data, start.actor) == ("table/R1", {"table": "R1", "patron": patron}, "boss")
    # 37 minutes later he leaves (the service's clock moved on).
    monkeypatch.setattr(ratings, "now", lambda: start.occurred_at + timedelta(minutes=37, seconds=20))
    stop = {"patron": patron, "average_bet": "30", "buy_in": "200"}
    done = boss.post(reverse("dashboard:rating-stop", args=["R1"]), stop, follow=True)
    assert f"Rating recorded for Test Patron ({patron}): 37 min timed, average bet 30.00 EUR." in text(done)
    rated = Event.objects.get(type="PatronRatedManually")
    assert (rated.data["minutes"], rated.data["average_bet_cents"], rated.data["buy_in_cents"]) == (37, 3_000, 20_000)
    assert rated.data["started"] == start.position
    assert "Being timed" not in text(done)
    none = boss.post(reverse("dashboard:rating-stop", args=["R1"]), stop)
    assert none.status_code == 409 and f"no rating of {patron} is running at R1" in none.content.decode()
    page = boss.get(reverse("dashboard:patron", args=[patron])).content.decode()
    assert '<td data-figure="rating-how">timed at the table</td>' in page  # not "by hand"


def test_a_table_closes_once_the_dealer_confirms_the_closer(people):
    open_r5(people)
    boss, dealer = people["boss"], people["dealer"]
    sent = {"dealer": "dealer1", "closer-100000": "40", "closer-10000": "99"}  # 100.00 EUR short of the book
    assert boss.post(reverse("dashboard:close", args=["R5"]), sent).status_code == 302
    approval = Approval.objects.get(kind="table_close_counted")
    done = dealer.post(reverse("dashboard:approve", args=[approval.id]), follow=True)
    assert "The count differs by -100.00 EUR: reported as a variance." in text(done)
    assert Table.objects.get(code="R5").state == "closed"
    page = text(boss.get(reverse("dashboard:table", args=["R5"])))
    assert "Drop box: locked, left on the table for the drop team." in page


def test_reopening_shows_the_difference_with_the_last_closer_before_signing_and_needs_an_explanation(people):
    open_r5(people)
    boss, dealer = people["boss"], people["dealer"]
    boss.post(
        reverse("dashboard:close", args=["R5"]), {"dealer": "dealer1", "closer-100000": "40", "closer-10000": "99"}
    )
    dealer.post(reverse("dashboard:approve", args=[Approval.objects.get(kind="table_close_counted").id]))
    assert "Last closer: 49,900.00 EUR" in text(boss.get(reverse("dashboard:open") + "?table=R5"))
    sent = {"code": "R5", "game": "english_roulette", "dealer": "dealer1", "opener-100000": "40", "opener-10000": "100"}
    compared = text(boss.post(reverse("dashboard:open"), sent | {"compare": "1"}))
    assert "Last closer: 49,900.00 EUR (40 × 1,000.00 EUR, 99 × 100.00 EUR), signed by boss and dealer1" in compared
    assert "Your count: 50,000.00 EUR" in compared
    assert "Difference: 100.00 EUR — write what explains it below before you sign" in compared
    assert not Approval.objects.filter(kind="table_open_counted", state="pending").exists()  # nothing signed

    refused = boss.post(reverse("dashboard:open"), sent | {"variance_reason": "  "})
    page = refused.content.decode()
    assert refused.status_code == 400
    assert "Refused — <strong>Explanation of the difference</strong>: the opener differs from the last closer" in page
    assert 'name="opener-10000" inputmode="numeric" pattern="[0-9]*" autocomplete="off" value="100"' in page
    assert "Difference: 100.00 EUR" in text(refused)
    assert not Approval.objects.filter(kind="table_open_counted", state="pending").exists()

    why = "a 100.00 EUR chip left in the float drawer at the close"
    assert boss.post(reverse("dashboard:open"), sent | {"variance_reason": why}).status_code == 302
    approval = Approval.objects.get(kind="table_open_counted", state="pending")
    dealer.post(reverse("dashboard:approve", args=[approval.id]))
    opened = Event.objects.filter(type="TableOpened", data__table="R5").latest("position")
    assert (opened.data["variance_cents"], opened.data["variance_reason"]) == (10_000, why)


def test_the_approvals_page_is_for_signers_and_a_form_for_the_pit_boss(people):
    cashier = logged_in("cash9", Role.CASHIER)
    assert cashier.get(reverse("dashboard:approvals")).status_code == 403
    assert people["dealer"].get(reverse("dashboard:approvals")).status_code == 200
    assert people["dealer"].post(reverse("dashboard:open"), {"code": "R7"}).status_code == 403
    assert Client().post(reverse("dashboard:open"), {"code": "R7"}).status_code == 302  # to the login page
    reloaded = people["boss"].get(reverse("dashboard:limits", args=["R1"]))  # a form's address: its page
    assert (reloaded.status_code, reloaded["Location"]) == (302, reverse("dashboard:table", args=["R1"]))


def test_a_slip_refused_at_the_table_is_voided_once_a_second_supervisor_signs(people):
    open_r5(people)
    boss, boss2 = people["boss"], people["boss2"]
    boss.post(reverse("dashboard:slip-request", args=["R5"]), {"kind": "credit", "slip-10000": "3"})
    slip = Slip.objects.get()
    refuse = reverse("dashboard:slip-refuse", args=["R5", "credit", slip.serial])
    bad = boss.post(refuse, {"confirmation": "VOID", "reason": "", "approver": "boss2"})
    assert bad.status_code == 400 and "Refused — <strong>Reason</strong>" in bad.content.decode()
    assert boss.post(refuse, {"confirmation": "VOID", "reason": "wrong table", "approver": "boss2"}).status_code == 302
    queue = text(boss2.get(reverse("dashboard:approvals")))
    assert f"Void credit {slip.serial} (300.00 EUR, table R5): “wrong table”" in queue
    approval = Approval.objects.get(kind="slip_void")
    boss2.post(reverse("dashboard:approve", args=[approval.id]))
    slip.refresh_from_db()
    assert (slip.state, slip.voided_by, slip.void_approved_by, slip.void_reason) == (
        "voided",
        "boss",
        "boss2",
        "wrong table",
    )


def carried_fill(people) -> Slip:
    """R5 open with dealer1 (assigned by the opening he confirmed); a 500.00 EUR fill the pit boss
    requested, the cage issued and the runner carries to R5."""
    open_r5(people)
    people["boss"].post(reverse("dashboard:slip-request", args=["R5"]), {"kind": "fill", "slip-10000": "5"})
    slip = Slip.objects.get()
    approval_request(
        kind="slip_issue", payload={"kind": "fill", "serial": slip.serial, "runner": "run1"}, actor=SHIFT_CASHIER
    )
    people["runner"].post(reverse("workstations:runner-confirm", args=[Approval.objects.get(kind="slip_issue").id]))
    return slip


def test_the_dealer_counts_and_accepts_a_fill_at_his_table_from_his_own_page(people):
    slip = carried_fill(people)
    boss, dealer = people["boss"], people["dealer"]
    asked = boss.post(reverse("dashboard:slip-count", args=["R5", "fill", slip.serial]), follow=True)
    assert f"Fill {slip.serial}: waiting for dealer1 to sign from his own login." in text(asked)
    assert "at the table, waiting for the dealer dealer1 to count and accept it" in text(asked)
    queue = text(dealer.get(reverse("dashboard:approvals")))
    assert f"Count and accept fill {slip.serial} (500.00 EUR, table R5): 5 × 100.00 EUR" in queue
    approval = Approval.objects.get(kind="slip_accept")
    done = dealer.post(
        reverse("dashboard:approve", args=[approval.id]), {f"count-{approval.id}-10000": "5"}, follow=True
    )
    assert f"Approved and done: Count and accept fill {slip.serial}" in text(done)
    slip.refresh_from_db()
    assert (slip.state, slip.requested_by, slip.runner, slip.accepted_by) == ("delivered", "boss", "run1", "dealer1")
    delivered = Event.objects.get(type="FillDelivered")
    assert (delivered.actor, delivered.data["accepted_by"], delivered.data["counted"]) == (
        "dealer1",
        "dealer1",
        {"10000": 5},
    )


def test_a_dealer_of_another_table_neither_sees_nor_signs_its_fill(people):
    slip = carried_fill(people)
    people["boss"].post(reverse("dashboard:slip-count", args=["R5", "fill", slip.serial]))
    approval = Approval.objects.get(kind="slip_accept")
    other = logged_in("dealer2", Role.DEALER)
    assert "Count and accept" not in text(other.get(reverse("dashboard:approvals")))
    refused = other.post(reverse("dashboard:approve", args=[approval.id]))
    assert refused.status_code == 403 and "this approval waits for dealer1" in text(refused)
    slip.refresh_from_db()
    assert slip.state == "issued"


# --- a dealer's signature goes to the table's own dealer -----------------------------------


def test_a_fill_acceptance_is_asked_of_the_tables_assigned_dealer_without_the_pit_boss_choosing(people):
    logged_in("dealer2", Role.DEALER)
    slip = carried_fill(people)
    page = text(people["boss"].get(reverse("dashboard:table", args=["R5"])))
    assert f"Ask the dealer dealer1 to count and accept fill {slip.serial}" in page
    people["boss"].post(reverse("dashboard:slip-count", args=["R5", "fill", slip.serial]))
    approval = Approval.objects.get(kind="slip_accept")
    assert (approval.payload["dealer"], approval.waiting_for()[0]["user"]) == ("dealer1", "dealer1")


def test_a_fill_acceptance_naming_a_dealer_not_at_the_table_is_refused_naming_the_tables_dealer(people):
    logged_in("dealer2", Role.DEALER)
    slip = carried_fill(people)
    with pytest.raises(InvalidInput, match="dealer2 is not the dealer of table R5: its dealer is dealer1") as refused:
        approval_request(
            kind="slip_accept", payload={"kind": "fill", "serial": slip.serial, "dealer": "dealer2"}, actor="boss"
        )
    assert refused.value.field == "dealer"
    assert not Approval.objects.filter(kind="slip_accept").exists()


def test_a_closer_naming_a_dealer_not_at_the_table_is_refused_at_the_request_naming_the_tables_dealer(people):
    open_r5(people)
    logged_in("dealer2", Role.DEALER)
    boss = people["boss"]
    form = boss.get(reverse("dashboard:table", args=["R5"])).content.decode()
    assert "<option selected>dealer1</option>" in form and "The table's dealer: dealer1." in unescape(form)
    sent = {"dealer": "dealer2", "closer-100000": "40", "closer-10000": "100"}
    refused = boss.post(reverse("dashboard:close", args=["R5"]), sent)
    assert refused.status_code == 400
    assert "Refused — <strong>Dealer</strong>: dealer2 is not the dealer of table R5: its dealer is dealer1" in (
        refused.content.decode()
    )
    assert 'name="closer-10000" inputmode="numeric" pattern="[0-9]*" autocomplete="off" value="100"' in (
        refused.content.decode()
    )
    assert not Approval.objects.filter(kind="table_close_counted").exists()
    # Named nobody: the table's dealer.
    assert boss.post(reverse("dashboard:close", args=["R5"]), sent | {"dealer": ""}).status_code == 302
    assert Approval.objects.get(kind="table_close_counted").waiting_for()[0]["user"] == "dealer1"


def test_the_open_form_shows_the_house_edge_of_each_table_and_game_where_it_is_chosen(people):
    """The rule set's edge is read where the table is chosen: a closed table's own rules (its
    last rule set, here baccarat's banker paid 1:1, confirmed by two), a new table's game's
    default rules."""
    from games.services.tables import table_close, table_open

    table_open(code="P3", game="baccarat", opener_cents=1_000_000, actor="boss", rules={}, edge_approver=None)
    table_close(code="P3", actor="boss")
    form = people["boss"].get(reverse("dashboard:open")).content.decode()
    assert '<option value="P3">P3 · Punto banco · house edge banker 1.06 %, player 1.24 %, tie 14.36 %' in form
    assert ">Punto banco · house edge banker 1.06 %, player 1.24 %, tie 14.36 %</option>" in form
    assert ">English roulette · house edge 2.70 %, even chances 1.35 %</option>" in form


def test_the_open_form_preselects_the_tables_assigned_dealer(people):
    open_r5(people)
    boss, dealer = people["boss"], people["dealer"]
    boss.post(reverse("dashboard:close", args=["R5"]), {"closer-100000": "40", "closer-10000": "100"})
    dealer.post(reverse("dashboard:approve", args=[Approval.objects.get(kind="table_close_counted").id]))
    page = boss.get(reverse("dashboard:open") + "?table=R5").content.decode()
    assert "<option selected>dealer1</option>" in page and "R5's dealer: dealer1" in unescape(page)


# --- the dealer counts a fill himself ------------------------------------------------------


def test_a_dealers_count_that_is_not_the_slips_is_refused_on_count_nothing_written_and_kept_on_the_page(people):
    slip = carried_fill(people)
    people["boss"].post(reverse("dashboard:slip-count", args=["R5", "fill", slip.serial]))
    approval = Approval.objects.get(kind="slip_accept")
    page = people["dealer"].get(reverse("dashboard:approvals")).content.decode()
    assert f'name="count-{approval.id}-10000"' in page  # a count table beside his Approve button
    before = Event.objects.count()
    refused = people["dealer"].post(
        reverse("dashboard:approve", args=[approval.id]), {f"count-{approval.id}-10000": "4"}
    )
    html = refused.content.decode()
    assert refused.status_code == 400
    assert "Refused — <strong>Chips counted</strong>: the count (400.00 EUR) is not the slip&#x27;s" in html
    assert f'name="count-{approval.id}-10000" inputmode="numeric" pattern="[0-9]*" autocomplete="off" value="4"' in html
    assert Event.objects.count() == before
    approval.refresh_from_db()
    slip.refresh_from_db()
    assert (approval.state, slip.state) == ("pending", "issued")
    # Not counted at all: refused the same way.
    blank = people["dealer"].post(reverse("dashboard:approve", args=[approval.id]))
    assert blank.status_code == 400 and "count the chips the runner brought" in text(blank)


# --- a void: VOID typed, both signers shown, what waited on the slip withdrawn --------------


def test_a_void_without_void_typed_is_refused_on_the_confirmation_field(people):
    open_r5(people)
    boss = people["boss"]
    boss.post(reverse("dashboard:slip-request", args=["R5"]), {"kind": "fill", "slip-10000": "3"})
    slip = Slip.objects.get()
    refuse = reverse("dashboard:slip-refuse", args=["R5", "fill", slip.serial])
    for typed in ("", "void", "yes"):
        page = boss.post(refuse, {"confirmation": typed, "reason": "wrong table", "approver": "boss2"})
        assert page.status_code == 400
        html = page.content.decode()
        assert "Refused — <strong>VOID</strong>: type VOID, in capitals, to confirm the void" in html
        assert 'value="wrong table"' in html  # what he typed stays
    assert not Approval.objects.filter(kind="slip_void").exists()


def test_voiding_a_slip_withdraws_its_pending_acceptance_and_shows_both_signers(people):
    slip = carried_fill(people)
    boss, boss2, dealer = people["boss"], people["boss2"], people["dealer"]
    boss.post(reverse("dashboard:slip-count", args=["R5", "fill", slip.serial]))
    asked = Approval.objects.get(kind="slip_accept")
    void = {"confirmation": "VOID", "reason": "the runner dropped the rack", "approver": "boss2"}
    assert boss.post(reverse("dashboard:slip-refuse", args=["R5", "fill", slip.serial]), void).status_code == 302
    boss2.post(reverse("dashboard:approve", args=[Approval.objects.get(kind="slip_void").id]))
    asked.refresh_from_db()
    assert (asked.state, asked.decided_by, asked.reason) == ("withdrawn", "boss2", f"fill {slip.serial} was voided")
    withdrawn = Event.objects.get(type="ApprovalWithdrawn")
    assert (withdrawn.stream, withdrawn.data["ended_by"]) == (
        asked.stream,
        str(Approval.objects.get(kind="slip_void").id),
    )
    assert "Count and accept" not in text(dealer.get(reverse("dashboard:approvals")))
    page = boss.get(reverse("dashboard:table", args=["R5"]))
    row = re.search(rf'data-serial="{slip.serial}".*?</tr>', page.content.decode(), re.S).group(0)
    assert "voided boss, approved boss2: “the runner dropped the rack”" in unescape(row)
    assert "waiting for the dealer" not in text(page)
    decided = text(boss.get(reverse("dashboard:approvals")))
    assert (
        f"Count and accept fill {slip.serial}" in decided
        and f"withdrawn by boss2 (“fill {slip.serial} was voided”)" in decided
    )


def test_a_makers_own_withdrawal_reads_withdrawn_by_him(people, played):
    boss = people["boss"]
    _, coup = played
    boss.post(reverse("dashboard:coup-reversal", args=[coup]), {"reason": "ball misread", "approver": "boss2"})
    approval = Approval.objects.get(kind="round_reverse")
    done = boss.post(reverse("dashboard:refuse", args=[approval.id]), follow=True)
    assert "Withdrawn: Reverse coup 1 at table R1" in text(done)
    approval.refresh_from_db()
    assert (approval.state, approval.decided_by) == ("withdrawn", "boss")
    decided = text(boss.get(reverse("dashboard:approvals")))
    assert "Reverse coup 1 at table R1: “ball misread” — withdrawn by boss" in decided
    assert "refused by boss" not in decided
    assert Event.objects.filter(type="ApprovalWithdrawn", actor="boss").count() == 1


def test_a_fill_at_a_table_with_no_dealer_assigned_says_who_may_accept_it(people):
    from staff.services import dealer_release

    slip = carried_fill(people)
    dealer_release(dealer="dealer1", actor="boss")
    asker = text(people["boss"].get(reverse("dashboard:table", args=["R5"])))
    assert (
        "no dealer is assigned to this table to count it: a pit boss other than you counts and accepts it "
        "from his own login" in asker
    )
    assert f"Count and accept fill {slip.serial} yourself" not in asker
    other = text(people["boss2"].get(reverse("dashboard:table", args=["R5"])))
    assert "no dealer is assigned to this table to count it: count and accept it yourself below" in other
    assert f"Count and accept fill {slip.serial} yourself" in other


def test_the_closer_is_compared_with_the_tray_by_the_book_before_it_is_signed_and_nothing_is_asked(people):
    """A closer 274.60 EUR short was once signed with no warning: counted first, the pit boss
    compares it with the book (nothing signed), keeps his count, and signs or counts again."""
    open_r5(people)
    asked = Approval.objects.count()
    count = {"closer-100000": "40", "closer-10000": "97"}  # 49,700.00 EUR against 50,000.00 by the book
    page = people["boss"].post(reverse("dashboard:close", args=["R5"]), count | {"dealer": "dealer1", "compare": "1"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-figure="closer-count">49,700.00 EUR<' in html and 'data-figure="closer-book">50,000.00 EUR<' in html
    assert re.search(r'data-figure="closer-difference"[^>]*>-300.00 EUR</strong>: count the tray again', html)
    assert 'name="closer-10000" inputmode="numeric" pattern="[0-9]*" autocomplete="off" value="97"' in html
    assert Approval.objects.count() == asked and Table.objects.get(code="R5").state == "open"
