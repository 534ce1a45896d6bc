"""Browser tests: headless Debian chromium driven by Playwright against a live server, on
PostgreSQL (the server's thread and the test share committed data through ``committed_db``,
which skips on SQLite).

Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
between two browser steps are plain synchronous code, hence DJANGO_ALLOW_ASYNC_UNSAFE (as
Playwright's own Django guidance says)."""

import os
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections

from staff.roles import Role, grant

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(settings.BASE_DIR) / "var" / "artifacts"


# Where the browser tests must run (CI sets it for the PostgreSQL run: scripts/test.sh), a
# browser test that skips fails instead: a missing chromium or database would otherwise pass
# as a green run that drove no browser at all.
REQUIRE_BROWSER_TESTS = os.environ.get("CASINO_REQUIRE_BROWSER_TESTS") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_BROWSER_TESTS and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"a browser test skipped where browser tests must run ({reason})"


@pytest.fixture
def dashboard_server(committed_db):
    """A live server for this test only (``.url``), started after ``committed_db``.

    Not pytest-django's ``live_server``: that one pulls in ``transactional_db`` before
    ``committed_db`` can wrap it, so the flush after the test would run after the replication
    role had been reset, and the ledger's triggers would refuse its TRUNCATE."""
    from pytest_django.live_server_helper import LiveServer

    server = LiveServer("localhost")
    server._live_server_modified_settings.enable()
    try:
        yield server
    finally:
        server._live_server_modified_settings.disable()
        server.stop()


@pytest.fixture
def browser_page(dashboard_server):
    """A Playwright page (1280×800) in a headless chromium, closed after the test (before the
    server stops, so no request of its polling is left half-served)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM}: scripts/setup.sh dev installs it")
    sync_api = pytest.importorskip("playwright.sync_api")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(15_000)
        try:
            yield page
        finally:
            # Connections the test opened while Playwright ran live in a context that is gone
            # once it stops; left open, they would keep the test database busy at teardown.
            connections.close_all()
            browser.close()
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


def log_in(page, url: str, username: str, password: str = "floor-secret", *, app: str = "dashboard") -> None:
    """Log ``page`` in as ``username`` through the login page of ``app`` ("dashboard" or
    "workstations") on the live server at ``url``."""
    page.goto(f"{url}/{app}/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def second_person(page, url: str, username: str, app: str = "dashboard", password: str = "floor-secret"):
    """Another person's page: a new browser context (his own session) on the browser of
    ``page``, logged in as ``username`` to ``app`` ("dashboard" or "workstations")."""
    other = page.context.browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    other.set_default_timeout(15_000)
    log_in(other, url, username, password, app=app)
    return other


@pytest.fixture
def log_in_pit_boss(browser_page, dashboard_server, django_user_model):
    """A function: makes the pit boss ``boss`` and logs ``browser_page`` in to the dashboard as
    him, landing on the floor; returns the page. The test calls it once its floor is set up, so
    that the first page it reads already shows it."""

    def logged_in():
        grant(django_user_model.objects.create_user(username="boss", password="floor-secret"), Role.PIT_BOSS)
        log_in(browser_page, dashboard_server.url, "boss")
        return browser_page

    return logged_in
