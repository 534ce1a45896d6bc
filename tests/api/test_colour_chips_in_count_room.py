"""The count room's win counts the colour chips still out (a liability owed to the patrons):
the cage page and the daily report show that term as its own column, so each table's figures
add up on the page as the footnote's formula says."""

import re

import pytest
from django.urls import reverse

from cashier.reports import table_figures
from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in
from ledger.gaming_day import current_gaming_day
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db


@pytest.fixture
def colour_day(table):
    """R1: a 300.00 EUR cash buy-in, 200.00 EUR of colour chips bought with value chips, a
    10.00 EUR colour chip stake lost on red (the ball on 2, black): 190.00 EUR of colour still out."""
    patron = make_patron(20_000)
    table_buy_in(code="R1", patron=patron, amount_cents=30_000, actor=ACTOR)
    colour_chips_buy(table="R1", patron=patron, chips=100, unit_value_cents=200, colour="red", actor=ACTOR)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet = {"type": "chance_simple", "chance": "rouge"}
    bet_place(round_id=coup, patron=patron, stake_cents=1_000, chips="colour", bet=bet, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    return current_gaming_day()


def person(client, django_user_model, role):
    user = django_user_model.objects.create_user(username=f"{role}1", password="x")
    grant(user, role)
    client.force_login(user)
    return client


def test_the_figures_add_up_with_the_colour_chips_out_and_the_win_is_unchanged(colour_day):
    f = table_figures("R1", colour_day, colour_day)
    assert (f["drop_cents"], f["credits_cents"], f["fills_cents"]) == (30_000, 0, 0)
    assert f["closer_cents"] - f["opener_cents"] == -10_000  # 300.00 out in value chips, 200.00 back for colour
    assert f["colour_out_cents"] == 19_000
    assert f["win_cents"] == 1_000 == f["ledger_win_cents"]  # the colour stake lost
    assert (
        f["win_cents"]
        == (f["drop_cents"] + f["credits_cents"] - f["fills_cents"] + (f["closer_cents"] - f["opener_cents"]))
        - f["colour_out_cents"]
    )


def test_the_cage_page_shows_the_colour_chips_out_and_the_formula(client, django_user_model, colour_day):
    html = person(client, django_user_model, Role.CAGE_SUPERVISOR).get(reverse("dashboard:cage")).content.decode()
    assert '<th scope="col" class="num">Colour chips out</th>' in html
    row = html[html.index('<tr data-table="R1">') :].split("</tr>")[0]
    assert '<td class="num" data-figure="colour-out">190.00 EUR</td>' in row
    assert re.search(r'<td class="num [^"]*">10\.00 EUR</td>', row)  # the win, as before
    assert (
        "Win = drop + credits − fills + (closer − opener) − colour chips out (the colour chips"
        " issued today still with the patrons" in html
    )


@pytest.mark.parametrize("role", [Role.CASHIER, Role.AUDITOR])
def test_the_daily_report_shows_the_colour_chips_out_and_its_footnote_counts_them(
    client, django_user_model, colour_day, role
):
    reader = person(client, django_user_model, role)
    url = reverse("workstations:report", args=["table-games"])
    html = reader.get(url, {"gaming_day": colour_day.isoformat()}).content.decode()  # the open day, asked for
    assert '<th scope="col" class="num">Colour chips out</th>' in html
    day = html[html.index('<table data-period="1">') :].split("</table>")[0]
    r1 = day[day.index("Table R1 (English roulette, still open: closer = book)") :].split("</tr>")[0]
    # Each figure is its cell's text (a link to the events behind it, on the page).
    cells = dict(re.findall(r'data-figure="(\w+)">(?:<a [^>]*>)?([^<]*)', r1))
    assert [cells[k] for k in ("fills_cents", "credits_cents", "drop_cents")] == ["0.00 EUR", "0.00 EUR", "300.00 EUR"]
    assert [cells[k] for k in ("colour_out_cents", "win_cents")] == ["190.00 EUR", "10.00 EUR"]
    assert "Win = drop + credits − fills + (closer − opener) − colour chips out" in html
