"""Someone holding the application's database credentials changes a password hash, a role
group, the superuser or active flag, or a patron's name or document with raw SQL, around the
services that record each change: ``manage.py ledger verify`` replays the identity events,
names the account or patron and the field that differ (never the value), and fails; the
``casino_identity_mismatches`` gauge counts them. What the services did verifies intact.
"""

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import RequestFactory
from django.utils import timezone

from ledger import identity
from ledger.models import Event
from patrons.services.aml import patron_identity_record
from patrons.services.patrons import patron_register
from staff.services import staff_account_create
from tests.api.test_operations_metrics import scrape, value
from tests.integration.test_anchored_chain import _Out

pytestmark = pytest.mark.django_db

SECRET_PASSWORD = "correct horse battery staple"


def _verify() -> tuple[bool, str]:
    """(exit 0?, what the command said)."""
    out = _Out()
    try:
        call_command("ledger", "verify", stdout=out)
    except CommandError as error:
        return False, f"{out.text}\n{error}"
    return True, out.text


def _sql(statement: str, params=()) -> None:
    # What the insider does: a statement on the application's connection, no service, no event.
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def _logs_in(username: str, password: str) -> bool:
    """A login as the login page makes it (the lockout backend wants the request)."""
    return authenticate(RequestFactory().post("/accounts/login/"), username=username, password=password) is not None


@pytest.fixture
def people():
    """A cashier (with a password) and an identified patron, all made through the services."""
    staff_account_create(username="cash1", password=SECRET_PASSWORD, roles=["cashier"], actor="manage.py")
    staff_account_create(username="cage1", roles=["cage_supervisor"], actor="manage.py")
    code = patron_register(kind="identified", name="Anne Martin", document="FR-123", actor="cage1")["patron"]
    return {"patron": code}


def test_accounts_and_patrons_made_through_the_services_verify_intact(people):
    patron_identity_record(patron=people["patron"], name="Anne Martin", document="FR-124", actor="cage1")
    ok, text = _verify()
    assert ok, text
    assert identity.mismatches() == []
    assert "ledger chain intact" in text


@pytest.mark.parametrize(
    ("statement", "field"),
    [
        ("UPDATE auth_user SET is_superuser = true WHERE username = 'cash1'", "is_superuser"),
        ("UPDATE auth_user SET is_active = false WHERE username = 'cash1'", "is_active"),
        ("UPDATE auth_user SET is_staff = true WHERE username = 'cash1'", "is_staff"),
        ("UPDATE auth_user SET email = 'someone@else.example' WHERE username = 'cash1'", "email"),
        (
            "INSERT INTO auth_user_groups (user_id, group_id) "
            "SELECT u.id, g.id FROM auth_user u, auth_group g WHERE u.username = 'cash1' AND g.name = 'admin'",
            "groups",
        ),
        (
            "DELETE FROM auth_user_groups WHERE user_id = (SELECT id FROM auth_user WHERE username = 'cash1')",
            "groups",
        ),
    ],
)
def test_a_staff_account_changed_with_raw_sql_is_named_with_its_field(people, statement, field):
    staff_account_create(username="adm1", roles=["admin"], actor="manage.py")
    _sql(statement)
    ok, text = _verify()
    assert not ok
    assert f"staff account cash1: {field} differs from the ledger's identity events" in text
    assert [(m.kind, m.id, m.field) for m in identity.mismatches()] == [("staff account", "cash1", field)]


def test_a_password_hash_written_with_raw_sql_is_reported_without_printing_it(people):
    planted = make_password("the insider's own password")
    _sql("UPDATE auth_user SET password = %s WHERE username = 'cash1'", [planted])
    ok, text = _verify()
    assert not ok
    assert "staff account cash1: password differs from the ledger's identity events" in text
    assert planted not in text and planted.split("$")[-1] not in text
    # Logging in with the planted password is refused (test_planted_password_hash_refused_at_login).
    assert not _logs_in("cash1", "the insider's own password")
    assert [(m.id, m.field) for m in identity.mismatches()] == [("cash1", "password")]


def test_an_account_inserted_with_raw_sql_is_reported(people):
    _sql(
        "INSERT INTO auth_user (username, password, is_superuser, is_staff, is_active, first_name, last_name, "
        "email, date_joined) VALUES ('ghost', %s, true, true, true, '', '', '', %s)",
        [make_password("boo"), timezone.now()],
    )
    ok, text = _verify()
    assert not ok
    assert "staff account ghost: exists, but no identity event in the ledger created it" in text


@pytest.mark.parametrize(
    ("column", "value", "field"),
    [("document", "FR-999", "document"), ("name", "Somebody Else", "name"), ("kind", "anonymous", "kind")],
)
def test_a_patrons_identity_changed_with_raw_sql_is_named_with_its_field(people, column, value, field):
    code = people["patron"]
    _sql(f"UPDATE cashier_patron SET {column} = %s WHERE code = %s", [value, code])
    ok, text = _verify()
    assert not ok
    assert f"patron {code}: {field} differs from the ledger's identity events" in text
    assert value not in text and "FR-123" not in text


def test_a_patrons_document_key_changed_alone_with_raw_sql_is_named_and_one_from_the_services_is_not(people):
    code = people["patron"]
    # The key is derived: a document recorded differently through the services verifies intact.
    patron_identity_record(patron=code, name="Anne Martin", document="ｆｒ 124\u200b", actor="cage1")
    assert identity.mismatches() == []
    # A key written around the services (it would let a look-alike past the unique constraint).
    _sql("UPDATE cashier_patron SET document_key = %s WHERE code = %s", ["FR999", code])
    ok, text = _verify()
    assert not ok
    assert f"patron {code}: document_key differs from the ledger's identity events" in text
    assert [(m.id, m.field) for m in identity.mismatches()] == [(code, "document_key")]
    assert "FR999" not in text and "FR124" not in text


def test_a_patrons_document_changed_with_raw_sql_is_named_once_not_again_for_its_stale_key(people):
    code = people["patron"]
    _sql("UPDATE cashier_patron SET document = 'FR-999' WHERE code = %s", [code])
    assert [(m.id, m.field) for m in identity.mismatches()] == [(code, "document")]


def test_the_metrics_gauge_counts_each_mismatch(people, settings):
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1"]
    assert value(scrape(), "casino_identity_mismatches") == 0
    _sql("UPDATE auth_user SET is_superuser = true, is_active = false WHERE username = 'cash1'")
    _sql("UPDATE cashier_patron SET document = 'FR-999' WHERE code = %s", [people["patron"]])
    assert value(scrape(), "casino_identity_mismatches") == 3


class FewIterationsHasher(PBKDF2PasswordHasher):
    iterations = 1_000  # a stronger hasher than the tests' MD5, still quick


def test_a_password_rehashed_at_login_is_recorded_and_verifies(people, settings):
    # A stronger hasher than the one the password was set with: Django re-hashes at login.
    settings.PASSWORD_HASHERS = [f"{__name__}.FewIterationsHasher", "django.contrib.auth.hashers.MD5PasswordHasher"]
    stored = get_user_model().objects.get(username="cash1").password
    assert _logs_in("cash1", SECRET_PASSWORD)
    assert get_user_model().objects.get(username="cash1").password != stored
    ok, text = _verify()
    assert ok, text
    assert Event.objects.filter(type="StaffPasswordRehashed", data__user="cash1").count() == 1
