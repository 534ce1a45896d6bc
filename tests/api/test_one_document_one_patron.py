"""One identity document belongs to one patron: registering a patron, or recording his identity,
with a document another patron holds (letter case and spaces aside) is a 400 naming the field
``document``, through the API and the cashier's registration form (which keeps what was typed);
the database's unique constraint says the same to any other writer."""

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from ledger.models import Event
from patrons.models import Patron
from patrons.services.patrons import patron_register
from tests.api.test_cashier_windows import users  # noqa: F401 - the cage's logged-in client
from tests.conftest import ACTOR, client_as, staff_user

pytestmark = pytest.mark.django_db

PASSPORT = "passport 12AB34567"


@pytest.fixture
def holder(cage_float) -> str:
    """Jeanne Martin, registered with ``PASSPORT``."""
    return patron_register(kind="identified", name="Jeanne Martin", document=PASSPORT, actor=ACTOR)["patron"]


@pytest.fixture
def desk():
    return client_as(staff_user("cash1", "cashier"))


@pytest.mark.parametrize("typed", [PASSPORT, " PASSPORT 12ab34567 "])
def test_registering_a_second_patron_with_a_document_on_file_is_refused(desk, holder, typed):
    registered = Event.objects.filter(type="PatronRegistered").count()
    response = desk.post(
        "/api/patrons/register", {"kind": "identified", "name": "Someone Else", "document": typed}, format="json"
    )
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["field"] == "document"
    assert body["detail"] == (
        f"this identity document is already on file for patron {holder}: "
        "find him instead of registering the person again"
    )
    assert not Patron.objects.filter(name="Someone Else").exists()
    assert Event.objects.filter(type="PatronRegistered").count() == registered


def test_recording_another_patrons_document_is_refused_and_ones_own_again_is_not(desk, holder):
    other = patron_register(kind="identified", name="Paul Durand", document="ID-2", actor=ACTOR)["patron"]
    taken = desk.post(f"/api/patrons/{other}/identity", {"name": "Paul Durand", "document": PASSPORT}, format="json")
    assert taken.status_code == 400 and taken.json()["field"] == "document"
    assert Patron.objects.get(code=other).document == "ID-2"
    again = desk.post(f"/api/patrons/{holder}/identity", {"name": "Jeanne Martin", "document": PASSPORT}, format="json")
    assert again.status_code == 201, again.content


def test_the_cashiers_registration_form_keeps_what_was_typed_and_names_the_document(users, holder):  # noqa: F811
    cashier = users("cash2")
    response = cashier.post(
        reverse("workstations:cage-patron-register"), {"name": "Someone Else", "document": PASSPORT}
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert f"<strong>Identity document</strong>: This identity document is already on file for patron {holder}" in html
    assert 'value="Someone Else"' in html and f'value="{PASSPORT}"' in html
    assert not Patron.objects.filter(name="Someone Else").exists()


def test_the_database_refuses_a_second_patron_with_one_document(holder):
    with pytest.raises(IntegrityError), transaction.atomic():
        Patron.objects.create(code="P99999", kind="identified", name="Raw Insert", document=PASSPORT.upper())
    # Patrons without a document are many (the shared anonymous one, walk-ins without papers).
    Patron.objects.create(code="P99998", kind="identified", name="No papers 1", document="")
    Patron.objects.create(code="P99997", kind="identified", name="No papers 2", document="")
