"""The cage finds a patron by his name whatever its accents, letter case and spaces ("helene"
finds "Hélène"): a stored ``name_key`` (``patrons.names.name_key``: NFKD, combining marks
dropped, case folded, spaces collapsed) that registration and an identity change keep, that an
erasure blanks, and that the migration introducing it fills for every patron (reversibly)."""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from patrons.identity import patron_mismatches
from patrons.models import Patron
from patrons.selectors import patron_search
from patrons.services.aml import patron_identity_erase, patron_identity_record
from patrons.services.patrons import patron_register
from tests.api.test_cashier_windows import users  # noqa: F401 - the cage's logged-in client
from tests.conftest import ACTOR, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def helene(cage_float) -> str:
    """Hélène Dupont-Lefèvre, typed with two spaces, registered with her passport."""
    return patron_register(kind="identified", name="Hélène  Dupont-Lefèvre", document="passport 77HL", actor=ACTOR)[
        "patron"
    ]


@pytest.mark.parametrize("typed", ["helene", "HELENE", "Hélène", "hélène dupont", "dupont-lefevre", "HéLèNe  DUPONT"])
def test_a_name_search_finds_helene_however_her_accents_case_and_spaces_are_typed(helene, typed):
    assert [p.code for p in patron_search(typed)] == [helene]


def test_the_cage_finds_helene_by_her_name_typed_without_accents(users, helene):  # noqa: F811
    page = users("cash1").get(reverse("workstations:cage"), {"q": "helene"}).content.decode()
    assert f"<td>{helene}</td><td>Hélène  Dupont-Lefèvre</td>" in page


def test_registration_stores_the_name_key_and_none_without_a_name(helene):
    anon = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    assert dict(Patron.objects.values_list("code", "name_key")) == {helene: "helene dupont-lefevre", anon: ""}


def test_an_identity_change_moves_the_name_key_with_the_name(helene):
    cashier = staff_user("cash1", "cashier").username
    patron_identity_record(patron=helene, name="Zoë Ångström", document="passport 77HL", actor=cashier)
    assert Patron.objects.get(code=helene).name_key == "zoe angstrom"
    assert [p.code for p in patron_search("zoe angstrom")] == [helene]
    assert patron_search("helene") == []
    assert list(patron_mismatches()) == []


def test_an_erased_identity_leaves_no_name_key(helene):
    supervisor = staff_user("sup1", "cage_supervisor").username
    patron_identity_erase(patron=helene, actor=supervisor, now=timezone.now() + timedelta(days=5 * 366 + 1))
    assert Patron.objects.values_list("name", "name_key").get(code=helene) == ("", "")
    assert patron_search("helene") == []


def test_a_name_key_written_around_the_services_is_reported(helene):
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cashier_patron SET name_key = 'someone else' WHERE code = %s", [helene])
    assert [(m.id, m.field) for m in patron_mismatches()] == [(helene, "name_key")]


def test_the_migration_fills_the_name_key_of_every_patron(helene):
    other = patron_register(kind="identified", name="ＪＯＳÉ\tMaría", actor=ACTOR)["patron"]
    with connection.cursor() as cursor:  # the registry as it was before the key
        cursor.execute("UPDATE cashier_patron SET name_key = ''")
    importlib.import_module("patrons.migrations.0004_patron_name_key").fill_name_keys(apps, None)
    keys = dict(Patron.objects.values_list("code", "name_key"))
    assert keys == {helene: "helene dupont-lefevre", other: "jose maria"}


def test_the_migration_goes_back_and_forth_and_fills_the_keys_again(helene):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's schema editor cannot run inside the test's transaction")
    call_command("migrate", "patrons", "0003", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'cashier_patron'")
        assert "name_key" not in {row[0] for row in cursor.fetchall()}
    call_command("migrate", "patrons", "0004", verbosity=0)
    assert Patron.objects.get(code=helene).name_key == "helene dupont-lefevre"
