"""The session table never holds a cookie's value (staff/sessions.py): a row's
``session_key`` is a keyed digest of the cookie's key, so whoever reads ``django_session``
(a DBA, a backup) cannot put a row's key into a ``sessionid`` cookie and be that person. The
cookie itself works as before: across requests, at login (``cycle_key``), at a password change
(``update_session_auth_hash``) and at logout."""

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from staff.sessions import SessionStore, stored_key
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db

LOGIN = "/dashboard/login/"


def _logged_in(username: str = "pitboss2") -> Client:
    staff_user(username, "pit_boss")
    client = Client()
    response = client.post(LOGIN, {"username": username, "password": "x"})
    assert response.status_code == 302, response.content
    return client


def _cookie(client: Client) -> str:
    return client.cookies["sessionid"].value


def _stored_keys() -> set[str]:
    return set(Session.objects.values_list("session_key", flat=True))


def _is_anonymous(client: Client) -> bool:
    page = client.get("/dashboard/")
    api = client.get("/api/tables/")
    return page.status_code == 302 and "login" in page["Location"] and api.status_code in (401, 403)


def test_the_table_holds_a_digest_of_the_cookie_never_the_cookie():
    client = _logged_in()
    key = _cookie(client)
    assert key not in _stored_keys()
    assert stored_key(key) in _stored_keys()
    assert len(stored_key(key)) == 40 and stored_key(key) != key


def test_a_cookie_set_to_a_stored_key_is_not_logged_in():
    _logged_in()
    stored = _stored_keys()
    assert stored
    for row_key in stored:
        dba = Client()
        dba.cookies["sessionid"] = row_key
        assert _is_anonymous(dba), row_key


def test_the_real_cookie_works_across_requests():
    client = _logged_in()
    for _ in range(3):
        assert client.get("/dashboard/").status_code == 200
        assert client.get("/api/tables/").status_code == 200
    copy = Client()  # the cookie alone, in another browser, is the session
    copy.cookies["sessionid"] = _cookie(client)
    assert copy.get("/api/tables/").status_code == 200


def test_logout_deletes_the_row():
    client = _logged_in()
    key = _cookie(client)
    client.post("/dashboard/logout/")
    assert not Session.objects.filter(session_key=stored_key(key)).exists()
    stale = Client()
    stale.cookies["sessionid"] = key
    assert _is_anonymous(stale)


def test_login_cycles_the_key_and_keeps_the_data_under_the_new_digest():
    staff_user("pitboss2", "pit_boss")
    client = Client()
    before = client.session  # an anonymous session saved under its digest
    before["kept"] = "yes"
    before.save()
    old_key = before.session_key
    client.cookies["sessionid"] = old_key
    assert _stored_keys() == {stored_key(old_key)}

    assert client.post(LOGIN, {"username": "pitboss2", "password": "x"}).status_code == 302
    new_key = _cookie(client)
    assert new_key != old_key
    assert _stored_keys() == {stored_key(new_key)}  # the old row deleted by its digest
    assert SessionStore(new_key).load()["kept"] == "yes"
    assert client.get("/api/tables/").status_code == 200


def test_a_password_change_keeps_the_person_logged_in_under_a_new_key():
    client = _logged_in()
    old_key = _cookie(client)
    new_password = "Seven-Long-Words-For-The-Pit-42"
    response = client.post(
        "/accounts/password/",
        {"old_password": "x", "new_password1": new_password, "new_password2": new_password},
    )
    assert response.status_code == 302, response.content
    new_key = _cookie(client)
    assert new_key != old_key
    assert _stored_keys() == {stored_key(new_key)}
    assert client.get("/api/tables/").status_code == 200


def test_a_store_creates_cycles_deletes_and_clears_by_digest():
    store = SessionStore()
    store["n"] = 1
    store.create()
    key = store.session_key
    assert SessionStore().exists(key) and not SessionStore().exists(stored_key(key))
    store.cycle_key()
    assert store.session_key != key and _stored_keys() == {stored_key(store.session_key)}
    assert SessionStore(store.session_key).load() == {"n": 1}
    SessionStore().delete(store.session_key)
    assert _stored_keys() == set()

    store = SessionStore()
    store.set_expiry(-1)
    store.create()
    SessionStore.clear_expired()
    assert _stored_keys() == set()
