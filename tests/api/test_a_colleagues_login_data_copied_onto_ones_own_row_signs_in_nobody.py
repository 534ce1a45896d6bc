"""Someone holding the database copies a colleague's session data onto the row of his own
session (``UPDATE django_session SET session_data = …``): his cookie then reads an empty
session, anonymous, never the colleague; each session's own data still sign him in."""

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from staff.sessions import stored_key
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


def _logged_in(username: str) -> Client:
    client = Client()
    client.force_login(staff_user(username, "pit_boss"), backend="staff.backends.StaffBackend")
    return client


def _row(client: Client) -> Session:
    return Session.objects.get(pk=stored_key(client.cookies["sessionid"].value))


def test_a_colleagues_session_data_on_ones_own_row_is_nobody():
    mine, theirs = _logged_in("pit1"), _logged_in("pit2")
    assert mine.get("/dashboard/").status_code == 200
    Session.objects.filter(pk=_row(mine).pk).update(session_data=_row(theirs).session_data)
    answer = mine.get("/dashboard/")
    assert answer.status_code in (302, 403) and "pit2" not in answer.content.decode()
    assert theirs.get("/dashboard/").status_code == 200


def test_ones_own_session_survives_a_login_key_change():
    client = _logged_in("pit3")
    session = client.session
    session.cycle_key()
    session.save()
    client.cookies["sessionid"] = session.session_key
    assert client.get("/dashboard/").status_code == 200
