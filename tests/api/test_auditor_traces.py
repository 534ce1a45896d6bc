"""An auditor's day on the audit workstation's pages: he traces a patron through the event
list (a form, a ``patron=`` filter, patron codes as links), reads coups by their number at
their table, bets, rules and staff changes in words, the same drop and fills on the pages that
link to each other, the site's public key, and the bounds of a gaming day."""

import re

import pytest
from django.urls import reverse

from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.projections import catch_up
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(table):
    """R1: a patron's 300.00 EUR buy-in, a coup with his even-chance bet and an announced
    finale en plein 0, the ball on 2. Returns ``(patron, coup id)``."""
    patron = make_patron(10_000)
    table_buy_in(code="R1", patron=patron, amount_cents=30_000, actor=ACTOR)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=patron, stake_cents=2_000, bet={"type": "chance_simple", "chance": "rouge"}, actor=ACTOR
    )
    colour_chips_buy(table="R1", patron=patron, chips=20, unit_value_cents=500, actor=ACTOR)
    finale = {"name": "finale_en_plein_0"}
    bet_place(round_id=coup, patron=patron, stake_cents=500, chips="colour", announce=finale, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    return patron, coup


def _text(response) -> str:
    html = re.sub(r"<style>.*?</style>", "", response.content.decode(), flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _count(response) -> str:
    return re.search(r'data-figure="count"[^>]*>([^<]+)<', response.content.decode()).group(1)


def _touching(code: str) -> set[int]:
    """The events naming patron ``code`` or moving money on one of his accounts."""
    return {
        e.position
        for e in Event.objects.prefetch_related("postings")
        if e.data.get("patron") == code or any(p.account.startswith(f"patron:{code}:") for p in e.postings.all())
    }


def test_the_event_list_traces_a_patron_by_code_name_or_account(auditor, played):
    patron, _ = played
    url = reverse("workstations:audit-events")
    expected = _touching(patron)
    assert len(expected) > 5
    # Found past the audit projection's checkpoint (it lags the ledger), then through it.
    assert _count(auditor.get(url, {"patron": patron})) == f"{len(expected)} events"
    catch_up("audit")
    by_code = auditor.get(url, {"patron": patron})
    assert _count(by_code) == f"{len(expected)} events"
    assert "patron Test Patron (" in _text(by_code)
    assert _count(auditor.get(url, {"patron": "test patr"})) == f"{len(expected)} events"
    # His account without its sub-account: every account of his (chips and colour chips here).
    moved = Event.objects.filter(postings__account__startswith=f"patron:{patron}:").distinct().count()
    assert _count(auditor.get(url, {"account": f"patron:{patron}"})) == f"{moved} events"
    assert _count(auditor.get(url, {"account": f"patron:{patron}:chips"})) != "0 events"


def test_the_event_list_has_a_filter_form_and_patron_codes_are_links(auditor, played):
    patron, _ = played
    day = current_gaming_day().isoformat()
    page = auditor.get(reverse("workstations:audit-events"), {"gaming_day": day, "from": "1"})
    html = page.content.decode()
    start = html.index('data-section="event-filters"')
    form = html[start : html.index("</form>", start)]
    for name in ("gaming_day", "patron", "table", "type"):
        assert f'name="{name}"' in form
    assert '<option value="CashBuyIn">Cash buy in</option>' in form
    assert '<input type="hidden" name="from" value="1">' in form  # the other filters are kept
    assert f'href="{reverse("workstations:audit-events")}?patron={patron}" data-link="patron">{patron}</a>' in html


def test_a_coup_is_titled_by_its_number_at_its_table_not_its_id(auditor, played):
    _, coup = played
    bet = Event.objects.filter(type="BetPlaced").first()
    page = auditor.get(reverse("workstations:audit-event", args=[bet.position]))
    html = page.content.decode()
    title = re.search(r"<h1>(.*?)</h1>", html, re.S).group(1)
    assert "Coup 1 at R1" in title
    assert coup not in title
    trail = html[html.index('data-section="trail"') :]
    assert ">Coup 1 at R1<" in trail
    # The id at most as small secondary text beside the title.
    assert re.findall(rf"<[^<]*>{coup}<", html) == [f'<small class="meta hash">{coup}<'] * html.count(f">{coup}<")


def test_bets_rules_and_staff_changes_read_in_words_never_their_codes_or_digests(auditor, played):
    url = reverse("workstations:audit-events")
    day = current_gaming_day().isoformat()
    listed = _text(auditor.get(url, {"gaming_day": day, "type": "BetPlaced"}))
    assert "part of the announced finale en plein 0" in listed
    finale = Event.objects.filter(type="BetPlaced", data__announce="finale_en_plein_0").first()
    settled = Event.objects.filter(type="BetSettled").first()
    for event in (finale, settled):
        text = _text(auditor.get(reverse("workstations:audit-event", args=[event.position])))
        assert "finale_en_plein" not in text and "la_partage" not in text
    assert "la partage" in _text(auditor.get(reverse("workstations:audit-event", args=[settled.position])))
    created = Event.objects.filter(type="StaffUserChanged", data__has_key="password_digest").first()
    for page in (
        auditor.get(reverse("workstations:audit-event", args=[created.position])),
        auditor.get(url, {"type": "StaffUserChanged"}),
    ):
        assert "password set or changed" in _text(page)
        assert created.data["password_digest"] not in page.content.decode()


def test_a_voisins_bet_names_the_number_in_its_middle():
    from games.rules.event_words import line

    data = {"patron": "P00001", "stake_cents": 500, "position": {"type": "plein", "numbers": [32]}, "chips": "colour"}
    said = line("BetPlaced", data | {"announce": "voisins", "announce_number": 17})
    assert said.endswith("part of the announced voisins of 17")
    assert line("BetPlaced", data | {"announce": "orphelins_en_plein"}).endswith("announced orphelins en plein")


def test_the_drop_count_list_shows_the_drop_as_counted_with_its_variance_apart(auditor, played, django_user_model):
    from cashier.reports import table_games_daily_report
    from cashier.services.count_room import drop_box_remove, drop_count

    removers_and_counters = {"drop1": Role.DROP_TEAM, "drop2": Role.DROP_TEAM}
    removers_and_counters |= {"count1": Role.COUNT_TEAM, "count2": Role.COUNT_TEAM}
    for name, role in removers_and_counters.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    day = current_gaming_day()
    drop_box_remove(table="R1", gaming_day=day, actor="drop1", removers=["drop1", "drop2"])
    drop_count(table="R1", gaming_day=day, cash={"10000": 2, "5000": 1}, counters=["count1", "count2"], actor="count1")
    (r1,) = [
        r
        for r in table_games_daily_report(day)["rows"]
        if r["level"] == "table" and r["key"] == "R1" and r["period"] == "day"
    ]
    assert r1["drop_cents"] == 25_000
    listed = auditor.get(reverse("workstations:audit-events"), {"gaming_day": day.isoformat(), "type": "DropCounted"})
    row = listed.content.decode().split('data-section="events"')[1]
    money = re.search(r'<td class="num">([^<]+)<br><small data-figure="variance">([^<]+)</small>', row)
    assert money is not None
    assert money.groups() == ("250.00 EUR", "variance -50.00 EUR")


def test_fills_in_transit_reconcile_the_cage_report_with_the_daily_report(auditor, table, django_user_model):
    from cashier.services.slips import slip_accept, slip_issue, slip_request
    from tests.conftest import SHIFT_CASHIER

    for name, role in {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "run1": Role.RUNNER}.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    accepted = slip_request(kind="fill", table="R1", denominations={"10000": 7}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=accepted, runner="run1", actor=SHIFT_CASHIER)
    slip_accept(kind="fill", serial=accepted, actor="pit2", count={"10000": 7})
    carried = slip_request(kind="fill", table="R1", denominations={"10000": 5}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=carried, runner="run1", actor=SHIFT_CASHIER)
    day = current_gaming_day().isoformat()
    cage = auditor.get(reverse("workstations:report", args=["cage-accountability"]), {"gaming_day": day})
    cage_text = _text(cage)
    assert "Fills to the tables 1,200.00 EUR" in cage_text
    assert "of which in transit (issued, not yet accepted at the table) 500.00 EUR" in cage_text
    daily = _text(auditor.get(reverse("workstations:report", args=["table-games"]), {"gaming_day": day}))
    assert "Fills issued this day, not yet accepted at a table: 500.00 EUR" in daily


def test_the_audit_pages_show_the_sites_public_key_and_a_development_key_in_red(auditor, played):
    from ledger import signing

    key = signing.signing_key()
    day = current_gaming_day().isoformat()
    for page in (
        auditor.get(reverse("workstations:audit-days")),
        auditor.get(reverse("workstations:audit-day", args=[day])),
    ):
        html = page.content.decode()
        assert f'data-figure="public-key">{key.public_key}<' in html
        assert f'data-figure="key-id">{key.key_id}<' in html
        if key.kind == "development":
            assert '<strong class="win-neg" data-figure="development-key">development key' in html


def test_the_day_page_states_the_bounds_of_the_gaming_day(auditor, played, settings):
    day = current_gaming_day()
    text = _text(auditor.get(reverse("workstations:audit-day", args=[day.isoformat()])))
    start = settings.GAMING_DAY_START
    bounds = re.search(
        rf"Gaming day {day.isoformat()}: {start} (CET|CEST) (\d+) (\w+) to {start} (CET|CEST) (\d+) (\w+)\.", text
    )
    assert bounds is not None, text[:400]
    assert int(bounds.group(2)) == day.day and bounds.group(3) == day.strftime("%b")
