"""``manage.py demo_user``: one demo login per role the README's table lists, each with its
name as password, landing where the table says."""

import re
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from staff.roles import Role, roles_of

pytestmark = pytest.mark.django_db

LOGINS = {
    "pitboss": Role.PIT_BOSS,
    "pitboss2": Role.PIT_BOSS,
    "cashier": Role.CASHIER,
    "cagesup": Role.CAGE_SUPERVISOR,
    "auditor": Role.AUDITOR,
    "runner": Role.RUNNER,
    "compliance": Role.COMPLIANCE,
    "dealer": Role.DEALER,
    "drop": Role.DROP_TEAM,
    "drop2": Role.DROP_TEAM,
    "count": Role.COUNT_TEAM,
    "count2": Role.COUNT_TEAM,
    "verifier": Role.COUNT_TEAM,
}


def test_demo_user_creates_a_login_per_role_with_its_password(cage_float):
    out = StringIO()
    call_command("demo_user", stdout=out)
    for login, role in LOGINS.items():
        user = get_user_model().objects.get(username=login)
        assert user.check_password(login), login
        assert roles_of(user) == {role.value}, login
        assert f"Demo login: {login} / {login}" in out.getvalue()
    # Run again (scripts/demo.sh runs it at every start): nothing changes, nobody is duplicated.
    call_command("demo_user", stdout=StringIO())
    assert get_user_model().objects.filter(username__in=LOGINS).count() == len(LOGINS)
    assert get_user_model().objects.get(username="cashier").check_password("cashier")


def test_the_demo_login_dealer_deals_the_floors_table_s1_so_its_requests_reach_him(cage_float):
    """A dealer reads and signs only his own table's requests: the demo's dealer deals S1 (the
    floor's classic stud table), where the pit boss asks him to count a fill or a closer."""
    from games.services.tables import table_open
    from staff.models import DealerAssignment
    from tests.conftest import ACTOR

    table_open(code="S1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    out = StringIO()
    call_command("demo_user", stdout=out)
    assert "dealer deals table S1." in out.getvalue()
    call_command("demo_user", stdout=StringIO())  # run again: he stays where he deals
    seats = DealerAssignment.objects.filter(dealer__username="dealer", ended_at__isnull=True)
    assert list(seats.values_list("table_code", flat=True)) == ["S1"]
    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    assert re.search(r"\| dealer \(deals the floor's classic stud table \*\*S1\*\*.*\| `dealer` \| `dealer` \|", readme)


def test_the_readme_table_lists_every_demo_login_with_its_password():
    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    for login in LOGINS:
        assert re.search(rf"\| `{login}` \| `{login}` \|", readme), login


LANDS = {
    "pitboss": "/dashboard/",
    "pitboss2": "/dashboard/",
    "cashier": "/workstations/cage/",
    "cagesup": "/workstations/cage/",
    "auditor": "/workstations/audit/",
    "runner": "/workstations/runner/",
    "compliance": "/workstations/compliance/",
    "dealer": "/dashboard/approvals/",
    "drop": "/workstations/count-room/",
    "count": "/workstations/count-room/",
}
LOGIN_PAGES = ("/dashboard/login/", "/workstations/login/", "/api/auth/login/")


@pytest.mark.parametrize("login_page", LOGIN_PAGES)
@pytest.mark.parametrize("login", sorted(LANDS))
def test_each_demo_login_lands_on_its_own_page_whichever_form_it_used(cage_float, login, login_page):
    call_command("demo_user", stdout=StringIO())
    client = Client()
    answer = client.post(login_page, {"username": login, "password": login}, follow=True)
    assert answer.redirect_chain, answer.status_code
    assert answer.redirect_chain[-1][0] == LANDS[login], answer.redirect_chain
    assert answer.status_code == 200, answer.redirect_chain
    assert b"Not allowed" not in answer.content


def test_an_explicit_next_is_kept_after_the_login(cage_float):
    call_command("demo_user", stdout=StringIO())
    client = Client()
    form = {"username": "pitboss", "password": "pitboss", "next": "/dashboard/open/"}
    answer = client.post("/workstations/login/", form)
    assert answer.status_code == 302 and answer["Location"] == "/dashboard/open/"


def test_the_runner_lands_on_the_slips_issued_to_him(cage_float):
    call_command("demo_user", stdout=StringIO())
    client = Client()
    client.post("/workstations/login/", {"username": "runner", "password": "runner"})
    html = client.get("/workstations/runner/").content.decode()
    assert "Issued to you: confirm you carry it (0)" in html and "Nothing waits for you." in html
    # The runner's page is his alone: a cashier is refused it.
    client.force_login(get_user_model().objects.get(username="cashier"))
    assert client.get("/workstations/runner/").status_code == 403
