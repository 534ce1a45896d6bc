"""In a browser: after two admins reset a cashier's password, the cashier logging in at either
login form lands on the password page and nothing else opens until he has chosen his own;
then he lands on his cage page. Screenshots in var/artifacts/."""

import pytest
from playwright.sync_api import expect

from ledger.models import Event
from staff.accounts import staff_password_reset
from staff.roles import Role, grant

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres

NEW_PASSWORD = "blue-Tangerine-42-croupier"


def shot(page, name: str) -> None:
    for width, height in ((1280, 800), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"password-change-{name}-{width}x{height}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


@pytest.mark.parametrize("app", ["workstations", "dashboard"])
def test_a_cashier_whose_password_was_reset_chooses_his_own_before_the_cage(
    browser_page, dashboard_server, django_user_model, cage, app
):
    page = browser_page
    for name, role in (("adm1", Role.ADMIN), ("adm2", Role.ADMIN), ("cash1", Role.CASHIER)):
        grant(django_user_model.objects.create_user(username=name, password="old-secret-123"), role)
    temporary = staff_password_reset(username="cash1", actor="adm1", approver="adm2")["temporary_password"]

    log_in(page, dashboard_server.url, "cash1", temporary, app=app)
    expect(page.get_by_role("heading", level=1)).to_have_text("Choose a new password")
    expect(page.locator('[data-figure="password-due"]')).to_contain_text("Someone else changed your account")
    shot(page, f"{app}-due")
    page.goto(f"{dashboard_server.url}/workstations/cage/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Choose a new password")  # sent back

    page.get_by_label("Current password").fill(temporary)
    page.get_by_label("New password", exact=True).fill("short")
    page.get_by_label("New password again").fill("short")
    page.get_by_role("button", name="Change my password").click()
    expect(page.get_by_role("alert")).to_contain_text("too short")
    shot(page, f"{app}-refused")

    page.get_by_label("Current password").fill(temporary)
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password again").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Change my password").click()
    page.wait_for_url(f"{dashboard_server.url}/workstations/cage/")
    expect(page.locator("body")).not_to_contain_text("Choose a new password")
    shot(page, f"{app}-cage")
    assert Event.objects.filter(type="StaffPasswordChanged", actor="cash1").count() == 1


def test_the_admins_user_page_shows_the_password_and_roles_read_only_and_where_they_change(
    browser_page, dashboard_server, django_user_model
):
    page = browser_page
    django_user_model.objects.create_superuser(username="root", password="root-secret-123")
    cashier = django_user_model.objects.create_user(username="cash1", password="old-secret-123")
    grant(cashier, Role.CASHIER)
    page.goto(f"{dashboard_server.url}/admin/login/")
    page.get_by_label("Username").fill("root")
    page.get_by_label("Password").fill("root-secret-123")
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{dashboard_server.url}/admin/auth/user/{cashier.pk}/change/")
    expect(page.locator("body")).to_contain_text(
        "Read-only here: the password, the roles and the active flag change through"
    )
    expect(page.locator('input[name="password"], input[name="is_active"], select[name="groups"]')).to_have_count(0)
    shot(page, "admin-user")
    refused = page.goto(f"{dashboard_server.url}/admin/auth/user/{cashier.pk}/password/")
    assert refused.status == 403
    shot(page, "admin-password-refused")
