"""The auditor in a real browser: log in, see the gaming days with their seal,
download a day's export, upload it to be verified on the page (the standalone verifier),
then upload a tampered copy and see it refused; the exceptions of the day; a cashier who
tries the audit pages gets 403. Screenshots in var/artifacts/."""

import re
import zipfile

import pytest
from playwright.sync_api import expect

from cashier.services.cage import chips_purchase
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import seal_gaming_day
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def screenshots(page, name: str) -> None:
    for width, height in ((1280, 800), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"audit-{name}-{width}x{height}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_an_auditor_verifies_an_export_and_sees_a_tampered_copy_refused(
    browser_page, dashboard_server, django_user_model, cage, tmp_path
):
    page = browser_page
    for name, role in {"aud1": Role.AUDITOR, "cash1": Role.CASHIER}.items():
        grant(django_user_model.objects.create_user(username=name, password="audit-secret"), role)
    chips_purchase(patron=make_patron(), amount_cents=350_000, actor=ACTOR)
    day = current_gaming_day().isoformat()
    seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
    seal = Event.objects.get(type="GamingDaySealed")

    # --- a cashier may not enter ----------------------------------------------------------
    log_in(page, dashboard_server.url, "cash1", "audit-secret", app="workstations")
    response = page.goto(f"{dashboard_server.url}/workstations/audit/")
    assert response.status == 403
    page.context.clear_cookies()

    # --- the auditor lands on the gaming days ---------------------------------------------
    log_in(page, dashboard_server.url, "aud1", "audit-secret", app="workstations")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Gaming days")
    row = page.locator(f'[data-section="days"] tr[data-day="{day}"]')
    expect(row.locator('[data-figure="state"]')).to_have_text("sealed")
    expect(row.locator('[data-figure="head-hash"]')).to_have_text(seal.data["last_hash"])
    screenshots(page, "days")

    # --- download the day's export, then verify it on the page -----------------------------
    row.get_by_role("link", name=day).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Gaming day {day}")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download the day's export (.zip)").click()
    saved = tmp_path / f"gaming-day-{day}.zip"
    download.value.save_as(saved)
    page.get_by_label("Export file (.zip)").set_input_files(str(saved))
    page.get_by_role("button", name="Verify").click()
    verdict = page.locator('[data-figure="verdict"]')
    expect(verdict).to_contain_text(f"Verified (gaming-day-{day}.zip): OK:")
    screenshots(page, "verified")

    # --- a copy with one amount changed is refused, naming the file and line ----------------
    tampered = tmp_path / "tampered.zip"
    with zipfile.ZipFile(saved) as source, zipfile.ZipFile(tampered, "w") as copy:
        for name in source.namelist():
            body = source.read(name)
            copy.writestr(name, body.replace(b"350000", b"350001", 1) if name == "events.jsonl" else body)
    page.get_by_label("Export file (.zip)").set_input_files(str(tampered))
    page.get_by_role("button", name="Verify").click()
    expect(verdict).to_contain_text("Refused (tampered.zip): FAIL events.jsonl:")
    screenshots(page, "tampered")

    # --- the exceptions of the day: the purchase's AML events, each with its trail ----------
    page.get_by_role("link", name="Exceptions of the day").click()
    page.get_by_label("Kind").select_option("aml_flag")
    page.get_by_role("button", name="Filter").click()
    rows = page.locator('[data-section="exceptions"] tbody tr')
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("identity checked")
    screenshots(page, "exceptions")
    rows.first.get_by_role("link", name="trail").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^AML identity checked on aml/P\d+$"))
    expect(page.locator('[data-section="event"] [data-figure="type"]')).to_have_text("AmlIdentityChecked")
    expect(page.locator('[data-section="trail"]')).to_contain_text("chips purchased")
    expect(page.locator('[data-section="trail"]')).not_to_contain_text("ChipsPurchased")
    screenshots(page, "trail")

    # --- the printable reports: the page as it prints, with its signature lines -------------
    for link, slug in (
        ("Daily report", "table-games"),
        ("Cage report", "cage-accountability"),
        ("Variances", "variances"),
    ):
        page.get_by_role("link", name=link).click()
        expect(page.locator('[data-section="report-head"]')).to_contain_text(f"gaming day {day}")
        expect(page.locator('[data-section="signatures"]')).to_contain_text("Auditor (review)")
        screenshots(page, f"report-{slug}")
        page.go_back()


def test_an_auditor_reads_a_face_down_card_as_hidden_while_its_coup_is_in_play(
    browser_page, dashboard_server, django_user_model, cage, api
):
    from tests.api.test_caribbean_cases import StudTable

    page = browser_page
    grant(django_user_model.objects.create_user(username="aud1", password="audit-secret"), Role.AUDITOR)
    stud = StudTable(api)
    stud.coup([(make_patron(10_000), 1, 1_000)])
    for card in ("AS", "KD"):  # box 1, then the dealer: both face down
        assert api.post(f"/api/rounds/{stud.round}/cards", {"card": card}, format="json").status_code == 200
    dealer = Event.objects.get(type="CardDealt", data__round=stud.round, data__card="KD")

    log_in(page, dashboard_server.url, "aud1", "audit-secret", app="workstations")
    page.goto(f"{dashboard_server.url}/workstations/audit/events/{dealer.position}/")
    expect(page.locator('[data-section="what"]')).to_have_text("Card to dealer, face down")
    data = page.get_by_role("table", name="Event data")
    expect(data).to_contain_text("hidden until the coup is over")
    expect(data).not_to_contain_text("KD")
    expect(page.locator('[data-section="event"]')).not_to_contain_text(dealer.hash[:16])  # 52 guesses
    screenshots(page, "face-down-card-hidden")


def test_an_auditor_sees_an_export_signed_by_another_key_refused_in_red(
    browser_page, dashboard_server, django_user_model, cage, settings, tmp_path
):
    """An export whose every signature holds, under a key an attacker made: not this casino's."""
    from ledger.export.writer import export_zip_stream
    from ledger.signing import new_private_key_pem

    page = browser_page
    grant(django_user_model.objects.create_user(username="aud1", password="audit-secret"), Role.AUDITOR)
    chips_purchase(patron=make_patron(), amount_cents=350_000, actor=ACTOR)
    day = current_gaming_day()
    attacker = tmp_path / "attacker.pem"
    attacker.write_bytes(new_private_key_pem())
    site_key, settings.LEDGER_SIGNING_KEY_FILE = settings.LEDGER_SIGNING_KEY_FILE, str(attacker)
    seal_gaming_day(day=day, actor=ACTOR)
    forged = tmp_path / "forged.zip"
    forged.write_bytes(b"".join(export_zip_stream(day, include_identity=True)))
    settings.LEDGER_SIGNING_KEY_FILE = site_key

    log_in(page, dashboard_server.url, "aud1", "audit-secret", app="workstations")
    page.goto(f"{dashboard_server.url}/workstations/audit/days/{day.isoformat()}/")
    page.get_by_label("Export file (.zip)").set_input_files(str(forged))
    page.get_by_role("button", name="Verify").click()
    verdict = page.locator('[data-figure="verdict"]')
    expect(verdict).to_contain_text("Refused (forged.zip): signed by an unknown key — not this casino’s (ed25519:")
    expect(verdict).to_have_class(re.compile(r"\bverdict-bad\b"))
    expect(verdict).not_to_contain_text("Verified")
    screenshots(page, "foreign-key-refused")


def test_an_auditor_reads_a_demo_days_events_in_words(browser_page, dashboard_server, django_user_model):
    """The demo day's events as the auditor reads them: a fill's count as pieces of a
    denomination with its total and its accounts by name, a card dealt to a player's box and
    hand from a numbered shoe, the day's list with roles and event types in words."""
    from tests.integration.demo_days import play_small_demo_day

    page = browser_page
    grant(django_user_model.objects.create_user(username="aud1", password="audit-secret"), Role.AUDITOR)
    play_small_demo_day()
    fill = Event.objects.filter(type="FillDelivered").first()
    card = Event.objects.filter(type="CardDealt", data__to__kind="player").first()
    log_in(page, dashboard_server.url, "aud1", "audit-secret", app="workstations")

    page.goto(f"{dashboard_server.url}/workstations/audit/events/{fill.position}/")
    data = page.get_by_role("table", name="Event data")
    expect(data).to_contain_text("1 × 1,000 EUR (total 1,000.00 EUR)")
    expect(data).not_to_contain_text("100000")
    expect(page.get_by_role("table", name="Postings")).to_contain_text("Chips in transit")
    screenshots(page, "event-count")

    page.goto(f"{dashboard_server.url}/workstations/audit/events/{card.position}/")
    expect(page.get_by_role("heading", level=1)).to_contain_text(re.compile(r"Card dealt in Coup \d+ at B1"))
    data = page.get_by_role("table", name="Event data")
    expect(data).to_contain_text(re.compile(r"player's box \d, hand 1"))
    expect(data).to_contain_text(re.compile(r"Shoe 1 at B1"))
    expect(data).not_to_contain_text("DrawTarget")
    screenshots(page, "event-card")

    page.goto(f"{dashboard_server.url}/workstations/audit/events/?gaming_day={card.gaming_day.isoformat()}")
    rows = page.locator("main table tbody")
    expect(rows.first).to_contain_text("Roles of demo-pitboss: pit boss")
    expect(page.locator("main")).not_to_contain_text("pit_boss")
    expect(page.get_by_label("Event type")).to_contain_text("AML identity checked")
    screenshots(page, "event-list")
