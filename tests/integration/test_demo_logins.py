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


def test_the_readme_table_lists_every_demo_login_with_its_password():
    readme = (Path(settings.BASE_DIR) / "README.md").read_text()
    for login in LOGINS:
        assert re.search(rf"\| `{login}` \| `{login}` \|", readme), login


@pytest.mark.parametrize(
    ("login", "login_page", "lands"),
    [
        ("cashier", "/workstations/login/", "/workstations/cage/"),
        ("cagesup", "/workstations/login/", "/workstations/cage/"),
        ("auditor", "/workstations/login/", "/workstations/audit/"),
        ("pitboss2", "/dashboard/login/", "/dashboard/"),
    ],
)
def test_each_demo_login_lands_where_the_readme_says(cage_float, login, login_page, lands):
    call_command("demo_user", stdout=StringIO())
    client = Client()
    answer = client.post(login_page, {"username": login, "password": login})
    assert answer.status_code == 302 and answer["Location"].startswith(lands), answer.get("Location")
    assert client.get(answer["Location"]).status_code == 200
