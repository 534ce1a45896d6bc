"""One identity document belongs to one patron: registering a patron, or recording his identity,
with a document another patron holds, however it is typed (letter case, spaces, hyphens and
dashes, full-width or invisible characters aside: ``patrons.documents.document_key``), is a 400
naming the field ``document``, through the API and the cashier's registration form (which keeps
what was typed); the database's unique constraint on the stored key says the same to any other
writer. A patron is found by his document however it is typed."""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, transaction
from django.urls import reverse
from django.utils import timezone

from ledger.models import Event
from patrons.models import Patron
from patrons.selectors import patron_by_document, patron_search
from patrons.services.aml import identity_on_file, patron_identity_erase
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


@pytest.mark.parametrize(
    "typed", [PASSPORT.upper(), "ＰＡＳＳＰＯＲＴ １２ＡＢ３４５６７", "passport\u200b12-AB-34567"]
)
def test_the_database_refuses_a_second_patron_with_one_document(holder, typed):
    with pytest.raises(IntegrityError), transaction.atomic():
        Patron.objects.create(code="P99999", kind="identified", name="Raw Insert", document=typed)
    # Patrons without a document are many (the shared anonymous one, walk-ins without papers).
    Patron.objects.create(code="P99998", kind="identified", name="No papers 1", document="")
    Patron.objects.create(code="P99997", kind="identified", name="No papers 2", document="")


DUPDOC = "DUPDOC-777"
LOOK_ALIKES = [
    "DUPDOC 777",
    "ＤＵＰＤＯＣ-７７７",  # full-width
    "DUPDOC\u2011777",  # non-breaking hyphen
    "DUPDOC-777\u200b",  # trailing zero-width space
    "dupdoc.777",
    "DUPDOC\u2212777",  # minus sign
]


@pytest.fixture
def dupdoc(cage_float) -> str:
    return patron_register(kind="identified", name="Dora Dupont", document=DUPDOC, actor=ACTOR)["patron"]


@pytest.mark.parametrize("typed", LOOK_ALIKES)
def test_registering_a_look_alike_of_a_document_on_file_is_refused_as_a_duplicate(desk, dupdoc, typed):
    registered = Event.objects.filter(type="PatronRegistered").count()
    response = desk.post(
        "/api/patrons/register", {"kind": "identified", "name": "Someone Else", "document": typed}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["field"] == "document"
    assert response.json()["detail"] == (
        f"this identity document is already on file for patron {dupdoc}: "
        "find him instead of registering the person again"
    )
    assert not Patron.objects.filter(name="Someone Else").exists()
    assert Event.objects.filter(type="PatronRegistered").count() == registered


@pytest.mark.parametrize("typed", LOOK_ALIKES)
def test_recording_a_look_alike_of_another_patrons_document_is_refused(desk, dupdoc, typed):
    other = patron_register(kind="identified", name="Paul Durand", document="ID-2", actor=ACTOR)["patron"]
    taken = desk.post(f"/api/patrons/{other}/identity", {"name": "Paul Durand", "document": typed}, format="json")
    assert taken.status_code == 400 and taken.json()["field"] == "document", taken.content
    assert "already on file for patron" in taken.json()["detail"]
    assert Patron.objects.values_list("document", "document_key").get(code=other) == ("ID-2", "ID2")


def test_a_patron_may_record_his_own_document_typed_differently_and_the_key_follows(desk, dupdoc):
    again = desk.post(
        f"/api/patrons/{dupdoc}/identity", {"name": "Dora Dupont", "document": "dupdoc 777"}, format="json"
    )
    assert again.status_code == 201, again.content
    assert Patron.objects.values_list("document", "document_key").get(code=dupdoc) == ("dupdoc 777", "DUPDOC777")
    changed = desk.post(f"/api/patrons/{dupdoc}/identity", {"name": "Dora Dupont", "document": "NEW-1"}, format="json")
    assert changed.status_code == 201, changed.content
    assert Patron.objects.get(code=dupdoc).document_key == "NEW1"
    # The old document is free again.
    patron_register(kind="identified", name="Someone Else", document=DUPDOC, actor=ACTOR)


def test_the_registry_stores_the_key_of_each_document_and_none_for_no_document(dupdoc):
    nameless = patron_register(kind="identified", name="No papers", actor=ACTOR)["patron"]
    anon = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    keys = dict(Patron.objects.values_list("code", "document_key"))
    assert keys == {dupdoc: "DUPDOC777", nameless: "", anon: ""}


def test_an_erased_identity_leaves_no_key(dupdoc):
    supervisor = staff_user("sup1", "cage_supervisor").username
    patron_identity_erase(patron=dupdoc, actor=supervisor, now=timezone.now() + timedelta(days=5 * 366 + 1))
    assert Patron.objects.values_list("document", "document_key").get(code=dupdoc) == ("", "")
    patron_register(kind="identified", name="Someone Else", document=DUPDOC, actor=ACTOR)


@pytest.mark.parametrize("typed", ["---", "\u200b", " . / _ ", "\u2060\ufeff"])
def test_a_document_of_only_separators_or_invisible_characters_is_refused(desk, dupdoc, typed):
    registered = desk.post(
        "/api/patrons/register", {"kind": "identified", "name": "Someone Else", "document": typed}, format="json"
    )
    assert registered.status_code == 400 and registered.json()["field"] == "document", registered.content
    recorded = desk.post(f"/api/patrons/{dupdoc}/identity", {"name": "Dora Dupont", "document": typed}, format="json")
    assert recorded.status_code == 400 and recorded.json()["field"] == "document", recorded.content
    assert Patron.objects.get(code=dupdoc).document == DUPDOC


def test_a_document_without_letters_or_digits_is_no_identity_on_file(dupdoc):
    Patron.objects.filter(code=dupdoc).update(document="\u200b-")  # a row from before the key
    assert not identity_on_file(Patron.objects.get(code=dupdoc))


@pytest.mark.parametrize("typed", ["dupdoc 777", "ＤＵＰＤＯＣ-７７７", "DUPDOC\u2011777", "DUPDOC-777\u200b"])
def test_a_patron_is_found_by_his_document_however_it_is_typed(dupdoc, typed):
    assert patron_by_document(typed).code == dupdoc
    assert [p.code for p in patron_search(typed)] == [dupdoc]


def test_a_patron_is_found_by_part_of_his_document_however_it_is_typed(dupdoc):
    assert [p.code for p in patron_search("doc 77")] == [dupdoc]
    assert patron_search("--") == [] and patron_search("- -") == []
    assert patron_by_document("DUPDOC-778") is None and patron_by_document(" ") is None


def test_the_cage_finds_a_patron_by_his_document_however_it_is_typed(users, dupdoc):  # noqa: F811
    page = users("cash2").get(reverse("workstations:cage"), {"q": "dupdoc 777"}).content.decode()
    assert f"<td>{dupdoc}</td><td>Dora Dupont</td><td>{DUPDOC}</td>" in page


def test_the_cashiers_registration_form_refuses_a_look_alike_and_keeps_what_was_typed(users, dupdoc):  # noqa: F811
    typed = "ＤＵＰＤＯＣ-７７７"
    response = users("cash2").post(
        reverse("workstations:cage-patron-register"), {"name": "Someone Else", "document": typed}
    )
    html = response.content.decode()
    assert response.status_code == 400
    assert f"This identity document is already on file for patron {dupdoc}" in html
    assert f'value="{typed}"' in html


def _migration():
    return importlib.import_module("patrons.migrations.0003_patron_document_key")


def _forget_keys() -> None:
    # The registry as it was before the key: the column blank on every row.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cashier_patron SET document_key = ''")


def test_the_migration_fills_the_key_of_every_patron(dupdoc):
    other = patron_register(kind="identified", name="Paul Durand", document="passport 12.ab", actor=ACTOR)["patron"]
    nameless = patron_register(kind="identified", name="No papers", actor=ACTOR)["patron"]
    _forget_keys()
    _migration().fill_document_keys(apps, None)
    keys = dict(Patron.objects.values_list("code", "document_key"))
    assert keys == {dupdoc: "DUPDOC777", other: "PASSPORT12AB", nameless: ""}


def test_the_migration_stops_naming_the_patrons_whose_documents_are_one(dupdoc):
    twin = patron_register(kind="identified", name="Dora Twin", document="OTHER-1", actor=ACTOR)["patron"]
    third = patron_register(kind="identified", name="Paul Durand", document="AB-1", actor=ACTOR)["patron"]
    fourth = patron_register(kind="identified", name="Paul Durand", document="AB-2", actor=ACTOR)["patron"]
    _forget_keys()
    with connection.cursor() as cursor:  # what the old constraint let through
        cursor.execute("UPDATE cashier_patron SET document = %s WHERE code = %s", ["ＤＵＰＤＯＣ 777", twin])
        cursor.execute("UPDATE cashier_patron SET document = %s WHERE code = %s", ["ab 2", third])
    with pytest.raises(RuntimeError) as stopped:
        _migration().fill_document_keys(apps, None)
    assert str(stopped.value).endswith(f": {dupdoc}, {twin}; {third}, {fourth}")
    assert "POST /api/patrons/<code>/identity" in str(stopped.value)
    assert set(Patron.objects.values_list("document_key", flat=True)) == {""}  # nothing half-filled


def test_a_document_whose_key_is_too_long_to_store_is_refused_not_an_error(desk, cage_float):
    typed = "\ufb03" * 70  # the ligature ffi: three letters in the key each, 210 of them
    response = desk.post(
        "/api/patrons/register", {"kind": "identified", "name": "Someone Else", "document": typed}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "document", response.content
    assert "too long" in response.json()["detail"]


@pytest.mark.parametrize(
    ("typed", "named"),
    [
        ("DUPDOC\u3164777", "U+3164 HANGUL FILLER"),
        ("DUPDOC\u4e00777", "U+4E00 CJK UNIFIED IDEOGRAPH-4E00"),
        ("\u0425DUPDOC-777", "U+0425 CYRILLIC CAPITAL LETTER HA"),
    ],
)
def test_a_document_holding_a_letter_of_another_script_is_refused_naming_it(desk, dupdoc, typed, named):
    """An invisible letter, or a letter that looks like a dash or a Latin one, would key a look-
    alike as a new document: refused, the character named so the cashier sees what was typed."""
    registered = Event.objects.filter(type="PatronRegistered").count()
    response = desk.post(
        "/api/patrons/register", {"kind": "identified", "name": "Someone Else", "document": typed}, format="json"
    )
    assert response.status_code == 400 and response.json()["field"] == "document", response.content
    assert response.json()["detail"].startswith("write the document's type and number in Latin letters and digits")
    assert f"({named}) is not one" in response.json()["detail"]
    assert Event.objects.filter(type="PatronRegistered").count() == registered
