"""The pit boss dashboard through Django's test client: who may see it, and what it shows
after one coup at English roulette R1 (20.00 EUR on noir, ball on 2: the patron wins 20.00)."""

import re
from html import unescape
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.urls import reverse

from dashboard.urls import PROTECTED
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import projections
from ledger.models import Event, TableDayStats
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron, open_by_total

pytestmark = pytest.mark.django_db


def urls(patron: str, round_id: str) -> dict[str, str]:
    """One URL for every protected dashboard page (``dashboard.urls.PROTECTED``)."""
    args = {"table": ["R1"], "table-live": ["R1"], "coup-audit": [round_id], "patron": [patron]}
    return {name: reverse(f"dashboard:{name}", args=args.get(name, [])) for name in PROTECTED}


def test_anonymous_is_sent_to_the_login_page_from_every_page(client, played):
    for name, url in urls(*played).items():
        response = client.get(url)
        assert response.status_code == 302, name
        assert response["Location"].startswith(reverse("dashboard:login") + "?next="), name


@pytest.mark.parametrize("roles", [(), (Role.CASHIER, Role.DEALER, Role.AUDITOR), (Role.ADMIN,)])
def test_a_user_without_the_pit_boss_role_gets_403_on_every_page(client, django_user_model, played, roles):
    user = django_user_model.objects.create_user(username="other", password="pw", is_superuser=Role.ADMIN in roles)
    grant(user, *[r for r in roles if r != Role.ADMIN])
    client.force_login(user)
    for name, url in urls(*played).items():
        assert client.get(url).status_code == 403, name


def test_a_pit_boss_sees_every_page_and_nothing_is_written(pit_boss, played):
    head = Event.objects.count()
    for name, url in urls(*played).items():
        response = pit_boss.get(url, follow=name == "patron-lookup")
        assert response.status_code == 200, name
    assert Event.objects.count() == head
    assert pit_boss.post(reverse("dashboard:floor")).status_code == 405


def test_login_page_logs_a_pit_boss_in_and_lands_on_the_floor(client, django_user_model):
    user = django_user_model.objects.create_user(username="boss", password="pw")
    grant(user, Role.PIT_BOSS)
    page = client.get(reverse("dashboard:login"))
    assert page.status_code == 200 and b'<label for="id_username">' in page.content
    response = client.post(reverse("dashboard:login"), {"username": "boss", "password": "pw"})
    assert response.status_code == 302 and response["Location"] == reverse("dashboard:floor")
    assert client.get("/")["Location"] == reverse("dashboard:floor")


def test_root_shows_an_anonymous_visitor_the_two_logins_and_the_api_docs(client):
    response = client.get("/")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<a id="dashboard-login" href="/dashboard/login/">Pit boss dashboard: log in</a>' in html
    workstations = "Cage, audit and runner workstations: log in"
    assert f'<a id="workstations-login" href="/workstations/login/">{workstations}</a>' in html
    assert '<a id="docs" href="/api/docs/">API documentation</a>' in html


def test_floor_card_shows_the_table_figures_of_the_projection(pit_boss, played):
    stats = TableDayStats.objects.get(table="R1")
    assert stats.win_cents == -2_000 and stats.coups == 1
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    card = html[html.index('data-table="R1"') :]
    assert re.search(r'data-figure="win"[^>]*>-20\.00 EUR<', card)
    assert re.search(r'data-figure="coups-hour">1<', card)
    assert "English roulette" in card and "2.00 EUR – 100.00 EUR" in card  # default limits: 200 and 10,000 cents
    assert played[0] in card  # the patron of the last coup is seated


def test_floor_live_fragment_is_what_htmx_polls(pit_boss, played):
    html = pit_boss.get(reverse("dashboard:floor-live"), headers={"HX-Request": "true"}).content.decode()
    assert html.lstrip().startswith('<div id="floor-live" hx-get="/dashboard/_live" hx-trigger="every 3s"')
    assert "<html" not in html


def test_table_view_shows_the_last_number_the_coup_and_the_chart(pit_boss, played):
    html = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert re.search(r'class="n-black" aria-label="2 black">2<', html)
    assert re.search(
        r'data-coup="1">.*?<td>settled</td>\s*<td data-section="result">.*?>2</span> black\s*</td>', html, re.S
    )
    assert "<svg" in html and "Win on the coups of R1 over the gaming day" in html
    assert "htmx" in html and "https://" not in html.split("<svg")[0]  # htmx from our static files, no CDN


def test_audit_page_lists_the_coup_events_with_their_positions_and_hashes(pit_boss, played):
    _, coup = played
    events = list(Event.objects.filter(stream=f"round/{coup}").order_by("position").values("position", "hash"))
    html = pit_boss.get(reverse("dashboard:coup-audit", args=[coup])).content.decode()
    shown = re.findall(r'<tr data-position="(\d+)">.*?<code data-hash="([0-9a-f]{64})"', html, re.S)
    assert [(int(p), h) for p, h in shown] == [(e["position"], e["hash"]) for e in events]
    assert [e for e in shown] and "bet settled" in html
    # The hash shows short, its full value on hover and in the row's details element.
    first = events[0]["hash"]
    assert f'title="{first}">{first[:12]}…</code>' in html
    assert re.search(rf"<details><summary>full</summary>.*?{first}", html, re.S)


def test_patron_view_shows_the_rating_and_cash(pit_boss, played):
    code, _ = played
    html = pit_boss.get(reverse("dashboard:patron", args=[code])).content.decode()
    assert re.search(r'data-figure="actual-win"[^>]*>-20\.00 EUR<', html)  # the house lost 20.00 to him
    assert re.search(r'data-figure="cash-in">1,000\.00 EUR<', html)  # chips bought at the cage
    assert re.search(r'data-figure="cash-out">0\.00 EUR<', html)
    # One bet: no time between his first and last bet.
    assert re.search(r'data-figure="time-played"[^>]*>under a minute<', html)
    # The kind in the model's words; the audit timeline's link is labelled, not its raw URL.
    assert '<span class="meta" data-section="patron-kind">· Identified</span></h1>' in html
    assert f'<a href="/api/audit/patron/{code}/">audit timeline (API)</a>' in html
    assert f">/api/audit/patron/{code}/<" not in html


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (0, "under a minute"),
        (59, "under a minute"),
        (60, "1 min"),
        (720, "12 min"),
        (3_600, "1 h 00 min"),
        (3_900, "1 h 05 min"),
        (3_959, "1 h 05 min"),
        (37_800, "10 h 30 min"),
    ],
)
def test_time_played_reads_in_hours_and_minutes(seconds, words):
    from dashboard.templatetags.dashboard_tags import time_played

    assert time_played(seconds) == words


def test_an_aml_flag_reads_when_and_what_happened_and_links_its_event_only_for_an_auditor(
    client, django_user_model, cage
):
    code = make_patron(350_000)  # 3,500.00 EUR of chips: identity checked (2,000), transaction logged (3,000)
    logged = Event.objects.get(stream=f"aml/{code}", type="AmlTransactionLogged")
    at = logged.occurred_at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    boss = django_user_model.objects.create_user(username="boss", password="pw")
    grant(boss, Role.PIT_BOSS)
    client.force_login(boss)
    html = client.get(reverse("dashboard:patron", args=[code])).content.decode()
    flags = html[html.index('data-section="aml-flags"') : html.index("</ul>", html.index('data-section="aml-flags"'))]
    line = unescape(re.sub(r"<[^>]+>", "", flags.split('data-flag="AmlTransactionLogged">', 1)[1].split("</li>", 1)[0]))
    # Before the gaming day's start (06:00) an event belongs to the day before: the line says so.
    day = "" if at.date() == logged.gaming_day else f" (gaming day {logged.gaming_day:%Y-%m-%d})"
    assert line == (
        f"{at:%Y-%m-%d %H:%M %Z}{day} · transaction logged: cash in 3,500.00 EUR (chips bought at the cage), "
        f"day's total 3,500.00 EUR, threshold 3,000.00 EUR · by {ACTOR}"
    )
    assert 'data-flag="AmlIdentityChecked"' in flags and "identity checked: cash in 3,500.00 EUR" in flags
    assert "ledger entry" not in html and f">{logged.position}<" not in html and "/workstations/audit/" not in html
    # A pit boss who is also an auditor may open the event's page: the flag links to it.
    grant(boss, Role.AUDITOR)
    html = client.get(reverse("dashboard:patron", args=[code])).content.decode()
    link = reverse("workstations:audit-event", args=[logged.position])
    assert f'<a href="{link}">its ledger event</a>' in html
    assert client.get(link).status_code == 200


def test_unknown_table_round_or_patron_is_404_for_a_pit_boss(pit_boss, played):
    assert pit_boss.get(reverse("dashboard:table", args=["NOPE"])).status_code == 404
    assert pit_boss.get("/dashboard/coups/not-a-uuid/audit/").status_code == 404  # no path: not a UUID
    assert pit_boss.get(reverse("dashboard:patron", args=["P99999"])).status_code == 404


@pytest.fixture
def cage_reader(django_user_model):
    """A client of its own logged in as ``sup1``, a cage supervisor: the cage summary's reader."""
    from django.test import Client

    user = django_user_model.objects.create_user(username="sup1", password="pw")
    grant(user, Role.CAGE_SUPERVISOR)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("role", [Role.PIT_BOSS, Role.DEALER, Role.RUNNER, Role.COUNT_TEAM])
def test_the_cage_summary_is_not_open_to_the_pit_nor_the_floor(client, django_user_model, played, role):
    """SHIFTS.md: the cage's copy is not open to the pit. The cage's book (its totals, its
    cashiers, who issued each slip) is a 403 for the pit boss, and his header has no link to it."""
    user = django_user_model.objects.create_user(username="other", password="pw")
    grant(user, role)
    client.force_login(user)
    assert client.get(reverse("dashboard:cage")).status_code == 403
    if role == Role.PIT_BOSS:
        floor = client.get(reverse("dashboard:floor")).content.decode()
        assert reverse("dashboard:cage") not in floor


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CAGE_SUPERVISOR, Role.AUDITOR])
def test_the_cage_and_the_auditor_read_the_cage_summary_and_go_back_to_their_own_page(
    client, django_user_model, played, role
):
    user = django_user_model.objects.create_user(username="reader", password="pw")
    grant(user, role)
    client.force_login(user)
    html = client.get(reverse("dashboard:cage")).content.decode()
    assert 'data-figure="cage-cash"' in html and 'id="landing"' in html
    back = re.search(r'<a id="landing" href="([^"]+)">', html).group(1)
    assert client.get(back).status_code == 200
    # Every link on the page opens for its reader: none to the pit's pages (a table's) or to a 403.
    for link in set(re.findall(r'<a [^>]*href="(/[^"]*)"', html)):
        assert client.get(link).status_code == 200, link
    signs = role == Role.CAGE_SUPERVISOR  # he signs approvals: his header links to them
    assert (reverse("dashboard:approvals") in html) == signs


def test_cage_summary_reads_the_cage_balances_from_the_ledger(cage_reader, played):
    html = cage_reader.get(reverse("dashboard:cage")).content.decode()
    # The cage opened with 100,000.00 EUR of chips and sold 1,000.00 EUR of them.
    assert re.search(r'data-figure="cage-chips">99,000\.00 EUR<', html)
    assert re.search(r'data-figure="cage-cash">101,000\.00 EUR<', html)


def test_the_cage_summary_shows_a_gaming_day_picked_and_refuses_a_day_not_begun(cage_reader, played):
    from datetime import timedelta

    from ledger.gaming_day import current_gaming_day

    today = current_gaming_day()
    url = reverse("dashboard:cage")
    now = cage_reader.get(url).content.decode()
    before = cage_reader.get(url, {"gaming_day": (today - timedelta(days=1)).isoformat()}).content.decode()
    assert 'data-form="day"' in now and 'data-section="past-day"' not in now and "R1" in now
    assert f"gaming day {(today - timedelta(days=1)).isoformat()})" in before
    assert 'data-section="past-day"' in before and "No table active that day." in before
    assert re.search(r'data-figure="cage-cash">101,000\.00 EUR<', before)  # the balances stand as now
    assert cage_reader.get(url, {"gaming_day": "yesterday"}).status_code == 404
    assert cage_reader.get(url, {"gaming_day": (today + timedelta(days=1)).isoformat()}).status_code == 404


@pytest.fixture
def pit_staff(django_user_model):
    for name, role in {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "dealer2": Role.DEALER}.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)


def test_cage_summary_lists_a_pending_fill_and_the_table_drop(cage_reader, played, pit_staff):
    from cashier.services.slips import slip_request
    from games.services.tables import table_buy_in

    table_buy_in(code="R1", patron=played[0], amount_cents=30_000, actor=ACTOR)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 20}, actor="pit1")["serial"]
    html = cage_reader.get(reverse("dashboard:cage")).content.decode()
    pending = html[html.index('data-section="pending"') :]
    assert re.search(
        rf'data-serial="{serial}"><td>fill {serial}</td><td>R1</td><td>requested</td>'
        r'<td class="num">2,000\.00 EUR</td><td>pit1</td>',
        pending,
    )
    drop = html[html.index('data-section="drop"') :]
    assert re.search(r'data-table="R1">.*?<td class="num">300\.00 EUR</td><td>not yet \(recorded buy-ins\)</td>', drop)


def test_a_recount_that_differs_from_the_last_closer_is_a_variance_alert_on_the_floor(
    pit_boss, cage_reader, table, pit_staff
):
    from games.services.tables import table_close, table_open

    table_close(code="R1", closer={"1000000": 5}, dealer="dealer2", pit_boss="pit1", actor="pit1")
    table_open(
        code="R1",
        game="english_roulette",
        opener={"1000000": 4, "500000": 1, "100000": 4},
        dealer="dealer2",
        pit_boss="pit2",
        actor="pit2",
        variance_reason="a 1,000.00 EUR plaque missing",
    )
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    card = html[html.index('data-table="R1"') :]
    # What was counted, when (local time with its zone) and by whom; never the ledger's position.
    opened = Event.objects.filter(type="TableOpened").latest("position")
    local = opened.occurred_at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    assert (
        f'data-alert="variance">opener variance of -1,000.00 EUR: table opened at {local:%H:%M} {local.tzname()}'
        " by pit2</li>" in card
    )
    assert f"#{opened.position}" not in card
    cage = cage_reader.get(reverse("dashboard:cage")).content.decode()
    assert (
        f'<tr data-variance="opener"><td>opener</td><td>R1</td><td>table opened at {local:%H:%M} {local.tzname()}'
        ' by pit2</td><td class="num">-1,000.00 EUR</td><td>yes</td></tr>' in cage
    )


def grid(html: str, caption: str) -> list[list[str]]:
    """The marks of a road drawn as an HTML grid of circles, as columns (top to bottom), blanks
    dropped: each circle holds its mark and is coloured by it (``mark-banker``, ``mark-player``,
    ``mark-tie``)."""
    table = re.search(rf"<caption>{caption}</caption>(.*?)</table>", html, re.S).group(1)
    cell = re.compile(r'<td class="mark-(\w*)">(?:<span class="bead">([^<]*)</span>)?</td>')
    classes = {"B": "banker", "J": "player", "-": "tie"}
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", table, re.S):
        marks = []
        for kind, text in cell.findall(row):
            assert kind == classes.get(text, ""), (kind, text)
            marks.append(text)
        rows.append(marks)
    columns = [[row[c] for row in rows if row[c]] for c in range(len(rows[0]))] if rows else []
    return columns


def test_baccarat_table_view_draws_the_bead_plate_and_big_road_of_the_api(api, cage, pit_boss):
    from games.models import Shoe

    open_by_total("P1", "baccarat", rules={})
    assert api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json").status_code == 201
    code = make_patron(100_000)
    for _ in range(8):
        coup = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
        bet = {"patron": code, "bet": "player", "stake_cents": 1_000}
        assert api.post(f"/api/rounds/{coup}/baccarat-bets", bet, format="json").status_code == 201
        assert api.post(f"/api/rounds/{coup}/close-bets", {}, format="json").status_code == 200
        assert api.post(f"/api/rounds/{coup}/deal", {}, format="json").status_code == 200
    shoe = Shoe.objects.get(table__code="P1")
    history = api.get(f"/api/shoes/{shoe.id}/history").json()
    html = pit_boss.get(reverse("dashboard:table", args=["P1"])).content.decode()
    assert "Table P1 · Punto banco" in html and f"{history['coups']} coups" in html
    assert grid(html, "Bead plate") == history["bead_plate"]
    assert grid(html, "Big road") == history["big_road"]
    marks = {mark for column in history["bead_plate"] for mark in column}
    assert marks and marks <= {"B", "J", "-"}  # sheet 002's letters, never P or T


def test_win_series_has_one_point_per_coup_and_ends_at_the_day_win(table):
    from dashboard.table_reads import win_series
    from ledger.gaming_day import current_gaming_day

    a, b = make_patron(100_000), make_patron(100_000)
    for number in (2, 3, 0):  # noir and pair win on 2, both lose on 3 (rouge, impair), la partage on 0
        coup = round_open(table="R1", actor=ACTOR)["round"]
        for patron, chance in ((a, "noir"), (b, "pair")):
            bet = {"type": "chance_simple", "chance": chance}
            bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=bet, actor=ACTOR)
        round_close_bets(round_id=coup, actor=ACTOR)
        round_record_result(round_id=coup, number=number, actor=ACTOR)
    projections.catch_up_all()
    series = win_series("R1", day=current_gaming_day())
    assert [cents for _, cents in series] == [-2_000, 0, 1_000]  # the house gets half of each stake on 0
    assert series[-1][1] == TableDayStats.objects.get(table="R1").win_cents
    assert [cents for _, cents in win_series("R1", day=current_gaming_day(), max_points=2)] == [0, 1_000]


def test_aml_decisions_read_as_one_line_each():
    from dashboard.table_reads import aml_summary

    data = {
        "patron": "P00018",
        "direction": "in",
        "channel": "cage_purchase",
        "amount_cents": 200_000,
        "day_total_cents": 350_000,
        "threshold_cents": 200_000,
    }
    assert aml_summary("AmlIdentityChecked", data) == (
        "identity checked: cash in 2,000.00 EUR (chips bought at the cage), day's total 3,500.00 EUR, "
        "threshold 2,000.00 EUR"
    )
    buy_in = {**data, "channel": "table_buy_in", "table": "R1"}
    assert "cash in 2,000.00 EUR (cash buy-in at table R1)," in aml_summary("AmlTransactionLogged", buy_in)
    refused = {**data, "reason": "no identity on file"}
    assert aml_summary("AmlTransactionRefused", refused).endswith("threshold 2,000.00 EUR: no identity on file")
    assert aml_summary("AmlSomethingNew", {"patron": "P00018"}) == "AML something new: patron P00018"


def test_an_aml_decision_taken_per_visit_names_the_visits_total():
    """Under ``AML_BASIS = "visit"`` the threshold applies to the visit's total, which the
    decision records beside the day's: the line names the visit's."""
    from dashboard.table_reads import aml_summary

    data = {
        "patron": "P00018",
        "direction": "in",
        "channel": "cage_purchase",
        "amount_cents": 200_000,
        "day_total_cents": 200_000,
        "basis": "visit",
        "visit_total_cents": 1_100_000,
        "threshold_cents": 1_000_000,
    }
    assert aml_summary("AmlAggregateFlagged", data) == (
        "total flagged for a report: cash in 2,000.00 EUR (chips bought at the cage), "
        "visit's total 11,000.00 EUR, threshold 10,000.00 EUR"
    )
    per_day = {**data, "basis": "gaming_day", "day_total_cents": 1_100_000}
    del per_day["visit_total_cents"]
    assert "day's total 11,000.00 EUR, threshold 10,000.00 EUR" in aml_summary("AmlAggregateFlagged", per_day)


def test_the_patron_page_says_visits_total_when_the_basis_is_the_visit(settings, pit_boss, cage):
    settings.AML_BASIS = "visit"
    code = make_patron(350_000)
    html = unescape(pit_boss.get(reverse("dashboard:patron", args=[code])).content.decode())
    assert "transaction logged: cash in 3,500.00 EUR (chips bought at the cage), visit's total 3,500.00 EUR, " in html
    assert "day's total" not in html


def test_floor_alerts_for_a_shoe_near_its_cut_card_and_colour_chips_outstanding(pit_boss, colour_patron):
    from games.models import Shoe, Table
    from games.services.tables import table_open

    table_open(code="B1", game="blackjack", opener_cents=5_000_000, actor=ACTOR, rules={})
    # A shoe 15 cards from its cut card (a read test: the row is made directly, not dealt).
    Shoe.objects.create(
        table=Table.objects.get(code="B1"),
        mode="shuffled",
        decks=6,
        state="in_play",
        cut_position=260,
        drawn=["AS"] * 245,
    )
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    b1 = html[html.index('data-table="B1"') : html.index("</article>", html.index('data-table="B1"'))]
    assert re.search(r'data-alert="cut_card">15 cards to the cut card<', b1)
    assert "Black jack" in b1 and "10.00 EUR – 1,000.00 EUR" in b1  # min bet, box maximum
    r1 = html[html.index('data-table="R1"') :]
    assert re.search(r'data-alert="colour_chips">1 colour stack\(s\) outstanding: change back before close<', r1)
    assert f'id="seat-R1-{colour_patron}"' in r1  # seated by his colour chips


def test_a_large_single_payout_is_an_alert_and_theory_is_the_roulette_edge(pit_boss, colour_patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet = {"type": "plein", "numbers": [17]}
    bet_place(round_id=coup, patron=colour_patron, stake_cents=3_000, chips="colour", bet=bet, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=17, actor=ACTOR)
    projections.catch_up_all()
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    card = html[html.index('data-table="R1"') :]
    # 30.00 EUR en plein at 35:1: 1,050.00 EUR of winnings, over the 1,000.00 EUR alert line.
    paid = Event.objects.filter(type="BetSettled").latest("position")
    local = paid.occurred_at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    audit = reverse("dashboard:coup-audit", args=[coup])
    assert (
        f'data-alert="payout">{colour_patron} won 1,050.00 EUR in one payout at {local:%H:%M} {local.tzname()}'
        f' (<a href="{audit}">audit trail</a>)</li>' in card
    )
    assert pit_boss.get(audit).status_code == 200
    # The edge on what was played: theoretical win ÷ handle, roulette's 1/37 = 2.70% en plein
    # (the hold alert waits for 10,000 EUR of handle).
    assert re.search(r'data-figure="edge"[^>]*>2\.70 %<', card)
    assert re.search(r'data-figure="handle"[^>]*>30\.00 EUR<', card)
    assert 'data-alert="hold"' not in card


# --- the cage shift, closed tables, the two drops ---------------------------------------------


@pytest.fixture
def cage_staff(django_user_model):
    staff = {
        "cash1": Role.CASHIER,
        "drop1": Role.DROP_TEAM,
        "drop2": Role.DROP_TEAM,
        "count1": Role.COUNT_TEAM,
        "count2": Role.COUNT_TEAM,
        "dealer3": Role.DEALER,
    }
    for name, role in staff.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)


def figure(html: str, name: str) -> str:
    """The text of the element marked ``data-figure="<name>"`` (tags inside dropped)."""
    found = re.search(rf'data-figure="{name}"[^>]*>(.*?)</dd>', html, re.S)
    assert found is not None, name
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def test_cage_page_shows_the_cashier_shift_not_the_cage_books(cage_reader, played, cage_staff):
    from cashier.services.cage_shifts import cage_shift_close

    from ..conftest import SHIFT_CASHIER, drawer_count, open_cage_shift

    url = reverse("dashboard:cage")
    # The fixture's window (chips are sold only while one is open) ends the day's first shift.
    cage_shift_close(**drawer_count("1"), actor=SHIFT_CASHIER)
    opened = Event.objects.get(position=open_cage_shift("cash1")["event"])
    count = drawer_count(opened.data["window"])
    html = cage_reader.get(url).content.decode()
    # Times in the casino's zone (Europe/Paris), the zone named.
    paris = ZoneInfo("Europe/Paris")
    since = f"{opened.occurred_at.astimezone(paris):%Y-%m-%d %H:%M:%S %Z}"
    assert figure(html, "cage-shift") == f"window {opened.data['window']} open, by cash1 since {since}"
    # A second cashier's window beside it: both are open, and the page says so.
    second = Event.objects.get(position=open_cage_shift("cash2")["event"])
    html = cage_reader.get(url).content.decode()
    since2 = f"{second.occurred_at.astimezone(paris):%Y-%m-%d %H:%M:%S %Z}"
    assert figure(html, "cage-shift") == (
        f"window {opened.data['window']} open, by cash1 since {since}; "
        f"window {second.data['window']} open, by cash2 since {since2}"
    )
    closed = Event.objects.get(position=cage_shift_close(**drawer_count(second.data["window"]), actor="cash2")["event"])
    html = cage_reader.get(url).content.decode()
    assert figure(html, "cage-shift") == f"window {opened.data['window']} open, by cash1 since {since}"
    closed = Event.objects.get(position=cage_shift_close(**count, actor="cash1")["event"])
    html = cage_reader.get(url).content.decode()
    at = closed.occurred_at.astimezone(paris)
    expected = f"closed, by cash1 at {at:%Y-%m-%d %H:%M:%S %Z}, handed over to nobody (end of day)"
    assert figure(html, "cage-shift") == expected
    # The cage's books stay open across shifts (the float was counted in once): said as such.
    assert figure(html, "cage-books") == "open (float counted in; they stay open between shifts)"
    assert "<dt>Cage</dt><dd>open</dd>" not in html


def test_a_closed_table_card_shows_no_dealer_and_nobody_seated(pit_boss, played, pit_staff, cage_staff):
    from games.services.tables import table_close
    from staff.services import dealer_assign

    patron, _ = played
    dealer_assign(dealer="dealer3", table="R1", actor="pit1")
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    card = html[html.index('data-table="R1"') : html.index("</article>", html.index('data-table="R1"'))]
    assert (figure(card, "dealer"), figure(card, "seated")) == ("dealer3", f"Test Patron ({patron})")

    table_close(code="R1", closer={"1000000": 5}, dealer="dealer2", pit_boss="pit1", actor="pit1")
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    card = html[html.index('data-table="R1"') : html.index("</article>", html.index('data-table="R1"'))]
    assert 'class="state state-closed">closed<' in card
    assert figure(card, "dealer") == "none (table closed)"  # his assignment is still open: not shown
    assert figure(card, "seated") == "none (table closed)"
    assert f'id="seat-R1-{patron}"' not in card
    table_page = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert "closed, no dealer" in table_page and "dealer3" not in table_page


def test_the_drop_is_the_recorded_buy_ins_until_the_count_then_the_count(pit_boss, played, cage_staff):
    from cashier.reports import hold_pct, table_games_daily_report
    from cashier.services.count_room import drop_box_remove, drop_count
    from games.services.tables import table_buy_in
    from ledger.gaming_day import current_gaming_day

    patron, _ = played
    day = current_gaming_day()
    table_buy_in(code="R1", patron=patron, amount_cents=30_000, actor=ACTOR)
    projections.catch_up_all()
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    card = html[html.index('data-table="R1"') : html.index("</article>", html.index('data-table="R1"'))]
    # Not counted yet: the drop is the recorded buy-ins, and says so; one drop on the card.
    assert figure(card, "drop") == "300.00 EUR recorded" and card.count('data-figure="drop"') == 1
    # Under 1,000.00 EUR of drop the hold is the daily report's figure, with a caution.
    win = int(re.sub(r"[^0-9-]", "", figure(card, "win").removesuffix(" EUR").split(" ")[0]))
    assert figure(card, "hold") == f"{hold_pct(win, 30_000)} % (drop under 1,000.00 EUR: says little)"

    drop_box_remove(table="R1", gaming_day=day, actor="drop1", removers=["drop1", "drop2"])
    drop_count(table="R1", gaming_day=day, cash={"10000": 2, "5000": 1}, counters=["count1", "count2"], actor="count1")
    projections.catch_up_all()
    report = table_games_daily_report(day)
    (r1,) = [r for r in report["rows"] if r["level"] == "table" and r["key"] == "R1" and r["period"] == "day"]
    assert (r1["drop_cents"], r1["drop_counted"]) == (25_000, True)  # the daily report's drop: the count
    for page in (reverse("dashboard:floor"), reverse("dashboard:table", args=["R1"])):
        html = pit_boss.get(page).content.decode()
        money = html[html.index('data-section="money"') :]  # R1's figures (the floor's totals come first)
        assert figure(money, "drop") == "250.00 EUR", page
        assert figure(money, "win") == f"{r1['win_cents'] / 100:,.2f} EUR", page


def test_the_patron_box_finds_by_name_or_document_and_lists_several_name_first(pit_boss, cage):
    """ "Benali" once gave "No patron Benali": the box searches codes, names and identity
    documents (``patrons.selectors.patron_search``); one found → his page, several → a list
    reading each by name, his code second."""
    from patrons.services.patrons import patron_register

    def register(name: str, document: str) -> str:
        return patron_register(kind="identified", name=name, document=document, actor=ACTOR)["patron"]

    sara, karim = register("Sara Benali", "FR-BEN-0002"), register("Karim Benali", "FR-BEN-0001")
    lookup = reverse("dashboard:patron-lookup")
    one = pit_boss.get(lookup, {"q": "karim benali"})
    assert (one.status_code, one["Location"]) == (302, reverse("dashboard:patron", args=[karim]))
    by_document = pit_boss.get(lookup, {"q": "fr ben 0002"})
    assert by_document["Location"] == reverse("dashboard:patron", args=[sara])
    assert pit_boss.get(lookup, {"code": sara})["Location"] == reverse("dashboard:patron", args=[sara])
    several = pit_boss.get(lookup, {"q": "Benali"})
    assert several.status_code == 200
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(several.content.decode())))
    assert f"Karim Benali ({karim}) · FR-BEN-0001 Sara Benali ({sara}) · FR-BEN-0002" in page
    nobody = pit_boss.get(lookup, {"q": "Nobody"})
    assert nobody.status_code == 404 and "No patron matches “Nobody” by name, code or identity document." in (
        unescape(nobody.content.decode())
    )


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", unescape(html)))


def page_text(response) -> str:
    return text_of(response.content.decode())


def test_a_closed_table_with_its_box_not_counted_reads_not_final_on_the_cage_and_the_floor(pit_boss, cage, cage_reader):
    """Opened and closed without a buy-in: the floor said "No win is final yet" while the cage
    summary said "0.00 EUR final". Final is one rule on both: the box counted, the table closed."""
    from games.services.tables import table_close, table_open

    table_open(code="B2", game="blackjack", opener_cents=1_000_000, actor=ACTOR, rules={})
    table_close(code="B2", actor=ACTOR)
    projections.catch_up_all()
    assert "No win is final yet: drop boxes not counted." in page_text(pit_boss.get(reverse("dashboard:floor")))
    cage = cage_reader.get(reverse("dashboard:cage")).content.decode()
    row = text_of(cage[cage.index('<tr data-table="B2">') : cage.index("</tr>", cage.index('data-table="B2"'))])
    assert "not yet (no buy-in recorded)" in row and "final" not in row


def test_a_closed_tables_page_says_it_is_closed_once_and_a_patrons_page_reads_timeline(pit_boss, played):
    from games.services.tables import table_close

    patron, _ = played
    table_close(code="R1", actor=ACTOR)
    page = page_text(pit_boss.get(reverse("dashboard:table", args=["R1"])))
    assert page.count("is closed") == 1 and "(table closed)" not in page
    assert "Table R1 is closed. Open it with a counted opener." in page
    patron_page = page_text(pit_boss.get(reverse("dashboard:patron", args=[patron])))
    assert "His timeline" not in patron_page and "Timeline with ledger positions and hashes" in patron_page


def test_the_coup_in_play_reads_one_number_in_its_heading_and_its_opening_line(pit_boss, played):
    from games.services.rounds import round_open
    from tests.conftest import ACTOR

    round_open(table="R1", actor=ACTOR)
    html = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert '<strong data-figure="coup-number">2</strong>' in html
    assert "coup 2 of the day open for bets (the table&#x27;s coup 2)" in html
