"""The auditor's pages of one gaming day agree with each other: the day's event count is the
same on the list of days, on the day's page and in the event list it links to (a sealed day:
its sealed range, the seal itself not among them); an open day offers no export and says why;
the variance list of a busy day with exact counts says so, never "No activity"; a figure links
to the events behind it; every time reads local with its zone."""

import re

import pytest
from django.urls import reverse

from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import seal_gaming_day
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy_day(table):
    """R1 open (its opener counted exact), a 300.00 EUR buy-in, one even-chance coup."""
    patron = make_patron(10_000)
    table_buy_in(code="R1", patron=patron, amount_cents=30_000, actor=ACTOR)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=patron, stake_cents=2_000, bet={"type": "chance_simple", "chance": "rouge"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    return current_gaming_day()


def _text(response) -> str:
    html = re.sub(r"<style>.*?</style>", "", response.content.decode(), flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _figure(response, name: str) -> str:
    found = re.search(rf'data-figure="{name}"[^>]*>([^<]+)<', response.content.decode())
    assert found, name
    return found.group(1)


def test_an_open_day_offers_no_export_and_says_why(auditor, busy_day):
    day = busy_day.isoformat()
    days = auditor.get(reverse("workstations:audit-days"))
    assert reverse("workstations:audit-export", args=[day]) not in days.content.decode()
    assert "none yet: open, not sealed" in _text(days)
    page = auditor.get(reverse("workstations:audit-day", args=[day]))
    assert "Download the day's export" not in _text(page)
    assert "No export to download: the day is open and not sealed" in _text(page)
    report = auditor.get(reverse("workstations:report", args=["table-games"]), {"gaming_day": day})
    assert "No export of this day to download: it is open and not sealed" in _text(report)
    assert "provisional : the gaming day is still open" in _text(report)
    asked_anyway = auditor.get(reverse("workstations:audit-export", args=[day]))
    assert asked_anyway.status_code == 409
    assert "No export to download: the day is open and not sealed" in _text(asked_anyway)


def test_the_event_count_of_a_sealed_day_is_its_sealed_range_on_every_page(auditor, busy_day):
    day = busy_day.isoformat()
    seal = seal_gaming_day(day=busy_day, actor=ACTOR)
    sealed = seal["last_position"] - seal["first_position"] + 1
    stamped = Event.objects.filter(gaming_day=busy_day).count()
    assert stamped == sealed + 1  # the seal event itself is stamped with the day, after its range

    days = auditor.get(reverse("workstations:audit-days"))
    page = auditor.get(reverse("workstations:audit-day", args=[day]))
    assert _figure(days, "events") == _figure(page, "events") == f"{sealed:,}"
    assert reverse("workstations:audit-export", args=[day]) in page.content.decode()
    link = re.search(r'href="([^"]+)" data-figure="events"', page.content.decode()).group(1).replace("&amp;", "&")
    listed = auditor.get(link)
    assert _figure(listed, "count") == f"{sealed:,} events"
    assert (
        "Besides: 1 event dated this gaming day but recorded after its seal (the seal itself, sign-ins) is not"
        " covered by this day's seal nor in its export: the next day's seal and export cover it." in _text(page)
    )


def test_a_busy_day_with_exact_counts_says_no_variance_not_no_activity(auditor, busy_day):
    page = auditor.get(reverse("workstations:report", args=["variances"]), {"gaming_day": busy_day.isoformat()})
    text = _text(page)
    assert "No activity" not in text
    assert "Counts against the book this day: 1 table opener, 0 table closers, 1 cage count" in text
    assert "No variance: every one of the 2 counts of the day agreed with the book." in text


def test_a_figure_of_the_daily_report_links_to_the_events_behind_it(auditor, busy_day):
    day = busy_day.isoformat()
    page = auditor.get(reverse("workstations:report", args=["table-games"]), {"gaming_day": day})
    html = page.content.decode()
    row = html[html.index('data-row="R1"') :]
    opener = re.search(r'data-figure="opener_cents"><a class="figure" href="([^"]+)"', row).group(1)
    listed = auditor.get(opener.replace("&amp;", "&"))
    assert _figure(listed, "count") == "1 event"
    assert "Table R1 opened" in _text(listed)


def test_every_time_on_the_event_list_reads_local_with_its_zone(auditor, busy_day):
    listed = auditor.get(reverse("workstations:audit-events"), {"gaming_day": busy_day.isoformat()})
    times = re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[^<]*", listed.content.decode())
    assert times
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (CET|CEST)", t) for t in times), times


def test_a_bad_filter_of_the_event_list_is_a_400_that_names_it(auditor):
    response = auditor.get(reverse("workstations:audit-events"), {"from": "١٢"})
    assert response.status_code == 400
    assert "The from ledger position “١٢” is not a whole number." in _text(response)


def test_the_event_lists_filters_read_as_one_sentence(client, django_user_model, cage):
    """The filters a list shows read as one plain line: "Events shown: from ledger position 1,
    to ledger position 2."."""
    user = django_user_model.objects.create_user(username="aud-sentence", password="x")
    grant(user, Role.AUDITOR)
    client.force_login(user)
    html = client.get("/workstations/audit/events/", {"from": "1", "to": "2"}).content.decode()
    line = re.sub(r"<[^>]+>", "", html.split('data-section="filters">', 1)[1].split("</p>", 1)[0])
    assert line == "Events shown: from ledger position 1, to ledger position 2."
