"""The audit workstation through Django's test client: read-only pages for the
auditor, the export verified on the page by the standalone verifier, a tampered copy refused,
the exception view and its filters, an event's trail."""

import io
import re
import zipfile
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cashier.services.cage import chips_purchase
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import seal_gaming_day
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron
from workstations import audit_selectors

pytestmark = pytest.mark.django_db


@pytest.fixture
def sealed_day(cage) -> str:
    """A day with an identified patron's 3,500 EUR purchase (AML: identity checked, logged), sealed."""
    chips_purchase(patron=make_patron(), amount_cents=350_000, actor=ACTOR)
    day = current_gaming_day()
    seal_gaming_day(day=day, actor=ACTOR)
    return day.isoformat()


def pages(day: str, position: int) -> list[str]:
    return [
        reverse("workstations:audit-days"),
        reverse("workstations:audit-day", args=[day]),
        reverse("workstations:audit-export", args=[day]),
        reverse("workstations:audit-exceptions"),
        reverse("workstations:audit-event", args=[position]),
    ]


@pytest.mark.parametrize("role", [Role.CASHIER, Role.CAGE_SUPERVISOR, Role.PIT_BOSS, Role.DEALER, Role.ADMIN])
def test_roles_other_than_the_auditor_get_403_on_every_audit_page(client, django_user_model, sealed_day, role):
    user = django_user_model.objects.create_user(username="other", password="pw")
    grant(user, role)
    client.force_login(user)
    for url in pages(sealed_day, Event.objects.first().position):
        assert client.get(url).status_code == 403, url


def test_anonymous_is_sent_to_the_login_from_every_audit_page(client, sealed_day):
    for url in pages(sealed_day, Event.objects.first().position):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/workstations/login/"), url


def test_the_days_list_shows_the_seal_and_its_head_hash(auditor, sealed_day):
    seal = Event.objects.get(type="GamingDaySealed")
    html = auditor.get(reverse("workstations:audit-days")).content.decode()
    row = html[html.index(f'data-day="{sealed_day}"') :]
    assert re.search(r'data-figure="state">sealed<', row)
    assert f'data-figure="head-hash">{seal.data["last_hash"]}<' in row


def _download(auditor, day: str) -> bytes:
    response = auditor.get(reverse("workstations:audit-export", args=[day]))
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    return b"".join(response.streaming_content)


def _tampered(original: bytes) -> bytes:
    """The same zip with one amount in events.jsonl changed (350000 → 350001 cents)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(out, "w") as copy:
        for name in source.namelist():
            body = source.read(name)
            if name == "events.jsonl":
                assert b"350000" in body
                body = body.replace(b"350000", b"350001", 1)
            copy.writestr(name, body)
    return out.getvalue()


def test_the_export_verifies_on_the_page_and_a_tampered_copy_is_refused(auditor, sealed_day):
    url = reverse("workstations:audit-day", args=[sealed_day])
    original = _download(auditor, sealed_day)
    ok = auditor.post(url, {"export": SimpleUploadedFile("day.zip", original, "application/zip")})
    assert ok.status_code == 200
    assert re.search(r'data-figure="verdict">Verified \(day.zip\): OK: \d+ events verified', ok.content.decode())
    bad = auditor.post(url, {"export": SimpleUploadedFile("day.zip", _tampered(original), "application/zip")})
    assert bad.status_code == 422
    assert 'data-figure="verdict">Refused (day.zip): FAIL events.jsonl:' in bad.content.decode()
    junk = auditor.post(url, {"export": SimpleUploadedFile("day.zip", b"not a zip", "application/zip")})
    assert junk.status_code == 422 and "Refused (day.zip): FAIL" in junk.content.decode()
    assert auditor.post(url, {}).status_code == 400


def test_an_intact_export_checked_on_another_days_page_is_refused_naming_its_own_day(auditor, sealed_day):
    original = _download(auditor, sealed_day)
    on_its_page = audit_selectors.verify_upload(
        SimpleUploadedFile("day.zip", original), day=date.fromisoformat(sealed_day)
    )
    elsewhere = audit_selectors.verify_upload(SimpleUploadedFile("day.zip", original), day=date(2026, 1, 2))
    assert on_its_page.state == "verified" and on_its_page.message.endswith(f", gaming day {sealed_day}")
    assert (elsewhere.state, elsewhere.message) == (
        "refused",
        f"FAIL this is the export of gaming day {sealed_day}, not of 2026-01-02: check it on the page of {sealed_day}",
    )


def _rezipped(original: bytes, *, before: dict | None = None, after: dict | None = None) -> bytes:
    """The export's members again, with ``before`` written ahead of them and ``after`` behind."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(out, "w") as copy:
        for name, body in (before or {}).items():
            copy.writestr(name, body)
        for name in source.namelist():
            copy.writestr(name, source.read(name))
        for name, body in (after or {}).items():
            copy.writestr(name, body)
    return out.getvalue()


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_a_zip_with_a_file_nobody_signed_or_a_member_twice_is_refused(auditor, sealed_day):
    url = reverse("workstations:audit-day", args=[sealed_day])
    original = _download(auditor, sealed_day)
    extra = _rezipped(original, after={"evil.csv": b"patron,amount\nP00001,1\n"})
    forged_first = _rezipped(original, before={"aml.csv": b"forged\n"})
    for body, fault in (
        (extra, "FAIL evil.csv: is not named by the manifest: not part of the signed export"),
        (forged_first, "FAIL aml.csv: appears twice in the zip (which one is the export&#x27;s?)"),
    ):
        answer = auditor.post(url, {"export": SimpleUploadedFile("day.zip", body, "application/zip")})
        assert answer.status_code == 422
        assert f'data-figure="verdict">Refused (day.zip): {fault}' in answer.content.decode()


def _attacker_key(tmp_path) -> str:
    """A fresh Ed25519 private key of the attacker's own making (PEM file path)."""
    from ledger.signing import new_private_key_pem

    pem = tmp_path / "attacker.pem"
    pem.write_bytes(new_private_key_pem())
    return str(pem)


def _export_signed_with(auditor, settings, day: str, key_file: str) -> bytes:
    """The day sealed again and exported while ``key_file`` signs: a whole, self-consistent
    export (every signature valid) under a key that is not the casino's."""
    site_key = settings.LEDGER_SIGNING_KEY_FILE
    settings.LEDGER_SIGNING_KEY_FILE = key_file
    try:
        seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
        return _download(auditor, day)
    finally:
        settings.LEDGER_SIGNING_KEY_FILE = site_key


def test_an_export_signed_by_an_attackers_key_is_refused_as_not_this_casinos(auditor, sealed_day, settings, tmp_path):
    from ledger.export.verify_export import verify

    forged = _export_signed_with(auditor, settings, sealed_day, _attacker_key(tmp_path))
    forged_file = tmp_path / "forged.zip"
    forged_file.write_bytes(forged)
    assert verify(str(forged_file)).ok  # every signature holds: only the key gives it away
    url = reverse("workstations:audit-day", args=[sealed_day])
    response = auditor.post(url, {"export": SimpleUploadedFile("day.zip", forged, "application/zip")})
    html = response.content.decode()
    assert response.status_code == 422
    assert "Verified" not in html
    assert re.search(
        r'class="verdict verdict-bad" role="status" data-figure="verdict">Refused \(day.zip\): '
        r"signed by an unknown key — not this casino’s \(ed25519:[0-9a-f]{16}\)<",
        html,
    )


def test_an_export_signed_by_the_sites_configured_key_is_verified(auditor, sealed_day, settings, tmp_path):
    """A production site (its key in LEDGER_SIGNING_KEY_FILE): its own export is verified in
    strict mode, with no development-key warning; the development key's is not its own."""
    settings.LEDGER_SIGNING_KEY_FILE = _attacker_key(tmp_path)  # the site's own key, this time
    seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
    own = _download(auditor, sealed_day)
    url = reverse("workstations:audit-day", args=[sealed_day])
    response = auditor.post(url, {"export": SimpleUploadedFile("day.zip", own, "application/zip")})
    assert response.status_code == 200
    assert re.search(
        r'class="verdict verdict-ok" role="status" data-figure="verdict">'
        r"Verified \(day.zip\): OK: \d+ events verified, gaming day \d{4}-\d{2}-\d{2}<",
        response.content.decode(),
    )
    development = _export_signed_with(auditor, settings, sealed_day, "")
    refused = auditor.post(url, {"export": SimpleUploadedFile("day.zip", development, "application/zip")})
    assert refused.status_code == 422
    assert "Refused (day.zip): signed by an unknown key — not this casino’s (ed25519:" in refused.content.decode()


def test_the_exception_view_lists_the_aml_events_and_filters_them(auditor, sealed_day):
    url = reverse("workstations:audit-exceptions")
    everything = auditor.get(url, {"day": sealed_day}).content.decode()
    kinds = re.findall(r'<tr data-kind="(\w+)">', everything)
    # The cage's shift cashier created with his role (account events), then the 3,500 EUR
    # purchase: identity checked, transaction logged.
    assert kinds == ["role_change", "role_change", "aml_flag", "aml_flag"]
    assert "cash transaction logged, cash in 3,500.00 EUR (day&#x27;s total 3,500.00 EUR)" in everything
    assert "threshold: 3,000.00 EUR; day total: 3,500.00 EUR" in everything  # after, in currency units
    assert f'href="/api/audit/exceptions.csv?gaming_day={sealed_day}"' in everything
    assert (
        re.findall(r'<tr data-kind="(\w+)">', auditor.get(url, {"day": sealed_day, "kind": "void"}).content.decode())
        == []
    )
    nobody = auditor.get(url, {"day": sealed_day, "person": "someone-else"}).content.decode()
    assert "No exception matching the filters." in nobody
    elsewhere = auditor.get(url, {"day": sealed_day, "table": "R9"}).content.decode()
    assert "No exception matching the filters." in elsewhere


def test_an_events_trail_shows_it_and_its_correlated_events(auditor, sealed_day):
    purchase = Event.objects.get(type="ChipsPurchased", data__amount_cents=350_000)
    html = auditor.get(reverse("workstations:audit-event", args=[purchase.position])).content.decode()
    assert '<h1>Chips purchased <span class="meta">on cage/main</span></h1>' in html
    code = purchase.data["patron"]
    link = f'<a href="{reverse("workstations:audit-events")}?patron={code}" data-link="patron">{code}</a>'
    assert f'<p data-section="what">{link} bought 3,500.00 EUR of chips at the cage</p>' in html
    assert '<dt>Event type (code)</dt><dd><code data-figure="type">ChipsPurchased</code></dd>' in html
    logged = Event.objects.get(type="AmlTransactionLogged")  # it shares the purchase's correlation
    assert 'title="AmlTransactionLogged">AML transaction logged</a>' in html
    assert reverse("workstations:audit-event", args=[logged.position]) in html
    assert purchase.hash in html
    assert auditor.get(reverse("workstations:audit-event", args=[10**9])).status_code == 404


def test_an_aml_decisions_page_reads_in_words_with_its_type_code_aside(auditor, sealed_day):
    logged = Event.objects.get(type="AmlTransactionLogged")
    patron = logged.data["patron"]
    html = auditor.get(reverse("workstations:audit-event", args=[logged.position])).content.decode()
    assert f'<h1>AML transaction logged <span class="meta">on aml/{patron}</span></h1>' in html
    assert (
        '<p data-section="what">Transaction logged: cash in 3,500.00 EUR (chips bought at the cage), '
        "day&#x27;s total 3,500.00 EUR, threshold 3,000.00 EUR</p>"
    ) in html
    assert '<dt>Event type (code)</dt><dd><code data-figure="type">AmlTransactionLogged</code></dd>' in html
    # Codes of the data in words: the channel, the direction, the basis of the totals.
    assert '<th scope="row">channel</th><td>chips bought at the cage</td>' in html
    assert '<th scope="row">direction</th><td>cash in</td>' in html
    assert '<th scope="row">basis</th><td>per gaming day</td>' in html
    assert "cage_purchase" not in html and "gaming_day<" not in html
    assert "<h1>AmlTransactionLogged" not in html


def test_an_events_nested_amounts_read_in_currency_units(auditor, sealed_day):
    """``CageOpened`` carries ``variance_cents`` as an object per account: shown as pairs in
    currency units (it was a 500: the amount filter was handed the object)."""
    opened = Event.objects.get(type="CageOpened")
    response = auditor.get(reverse("workstations:audit-event", args=[opened.position]))
    assert response.status_code == 200
    html = response.content.decode()
    # The first opening stocks the cage: count − book = the whole float, per account.
    assert '<th scope="row">variance</th><td>Cage cash: 100,000.00 EUR; Cage chips: 100,000.00 EUR</td>' in html
    assert '<th scope="row">counted cash</th><td>100,000.00 EUR</td>' in html


def test_a_bets_page_names_its_place_on_the_layout_in_words(auditor, table, colour_patron):
    from games.services.bets import bet_place
    from games.services.rounds import round_open

    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup,
        patron=colour_patron,
        stake_cents=200,
        chips="colour",
        bet={"type": "plein", "numbers": [17]},
        actor=ACTOR,
    )
    placed = Event.objects.get(type="BetPlaced")
    html = auditor.get(reverse("workstations:audit-event", args=[placed.position])).content.decode()
    assert '<h1>Bet placed <span class="meta">in Coup 1 at R' in html
    url = reverse("workstations:audit-events")
    link = f'<a href="{url}?patron={colour_patron}" data-link="patron">{colour_patron}</a>'
    assert f'<p data-section="what">{link} bets 2.00 EUR on plein 17 (colour chips)</p>' in html
    assert '<th scope="row">position</th><td>plein 17</td>' in html
    assert '<th scope="row">chips</th><td>colour chips</td>' in html


def test_the_exception_view_takes_the_day_as_gaming_day_like_the_api_and_as_day(auditor, sealed_day):
    url = reverse("workstations:audit-exceptions")
    for name in ("gaming_day", "day"):
        html = auditor.get(url, {name: sealed_day}).content.decode()
        assert f"<h1>Exception log of gaming day {sealed_day}</h1>" in html, name
        assert re.findall(r'<tr data-kind="(\w+)">', html) == ["role_change", "role_change", "aml_flag", "aml_flag"], (
            name
        )
    # Another day is that day's log, not the latest's rows: here a day without any event.
    other = auditor.get(url, {"gaming_day": "2026-12-01"}).content.decode()
    assert "<h1>Exception log of gaming day 2026-12-01</h1>" in other
    assert '<option value="2026-12-01" selected>2026-12-01 (no event)</option>' in other
    assert re.findall(r'<tr data-kind="(\w+)">', other) == [] and "No exception." in other
    assert 'href="/api/audit/exceptions.csv?gaming_day=2026-12-01"' in other


@pytest.mark.parametrize("name", ["gaming_day", "day"])
def test_a_bad_day_on_the_exception_view_is_a_400_saying_so_with_no_rows(auditor, sealed_day, name):
    response = auditor.get(reverse("workstations:audit-exceptions"), {name: "2026-13-01"})
    html = response.content.decode()
    assert response.status_code == 400
    assert (
        '<li class="error" role="alert" data-section="error">Gaming day “2026-13-01” is not a date YYYY-MM-DD:'
        " no exception shown.</li>" in html
    )
    assert re.findall(r'<tr data-kind="(\w+)">', html) == [] and 'data-link="csv"' not in html


def test_the_exception_view_pages_its_rows_with_the_count_and_the_csv_stays_whole(auditor, sealed_day, monkeypatch):
    from workstations import audit_views

    monkeypatch.setattr(audit_views, "EXCEPTIONS_PER_PAGE", 2)
    url = reverse("workstations:audit-exceptions")
    # Four: the shift cashier's account and role, then the purchase's two AML events.
    first = auditor.get(url, {"gaming_day": sealed_day}).content.decode()
    assert '<span data-figure="count">4 exceptions, rows 1–2 (page 1 of 2)</span>' in first
    assert first.count('<tr data-kind="role_change">') == 2 and '<tr data-kind="aml_flag">' not in first
    assert f'<a href="?gaming_day={sealed_day}&amp;page=2">2</a>' in first
    assert f'<a href="?gaming_day={sealed_day}&amp;page=2" rel="next">Next</a>' in first
    second = auditor.get(url, {"gaming_day": sealed_day, "page": "2"}).content.decode()
    assert '<span data-figure="count">4 exceptions, rows 3–4 (page 2 of 2)</span>' in second
    assert second.count('<tr data-kind="aml_flag">') == 2 and '<strong aria-current="page">2</strong>' in second
    assert '<tr data-kind="role_change">' not in second
    # The CSV link carries the filters, no page: the download is the whole day.
    assert f'href="/api/audit/exceptions.csv?gaming_day={sealed_day}"' in second
    csv = auditor.get("/api/audit/exceptions.csv", {"gaming_day": sealed_day}).content.decode()
    assert len(csv.strip().splitlines()) == 1 + 4  # the header and every row


def test_the_event_lists_money_moved_is_the_lines_amount_not_the_sum_of_its_legs(auditor, sealed_day):
    """A 3,500 EUR sale debits the cage's cash, the patron's chips and the window's drawer: it
    moved 3,500 EUR, not four times that."""
    purchase = Event.objects.get(type="ChipsPurchased", data__amount_cents=350_000)
    assert sum(p.amount_cents for p in purchase.postings.all() if p.amount_cents > 0) > 350_000
    html = auditor.get(reverse("workstations:audit-events"), {"gaming_day": sealed_day}).content.decode()
    row = re.search(r'<td title="ChipsPurchased">.*?</tr>', html, re.S).group(0)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert cells == ["3,500.00 EUR"]


def test_a_registers_zip_put_in_the_export_check_is_told_how_registers_are_checked(auditor, sealed_day):
    registers = auditor.get(reverse("workstations:audit-registers", args=[sealed_day]))
    assert registers.status_code == 200
    url = reverse("workstations:audit-day", args=[sealed_day])

    shown = auditor.post(url, {"export": SimpleUploadedFile("registers.zip", registers.content, "application/zip")})

    assert shown.status_code == 422
    assert (
        'data-figure="verdict">Refused (registers.zip): this is a zip of registers, not an export: each register '
        "is checked with openssl against public-key.pem" in shown.content.decode()
    )


def test_the_standalone_verifier_is_downloaded_from_the_audit_page_and_checks_the_day_alone(
    auditor, sealed_day, tmp_path
):
    import subprocess
    import sys

    day_page = auditor.get(reverse("workstations:audit-day", args=[sealed_day])).content.decode()
    assert f'href="{reverse("workstations:audit-verifier")}" download>verify_export.py</a>' in day_page
    script = tmp_path / "verify_export.py"
    script.write_bytes(auditor.get(reverse("workstations:audit-verifier")).content)
    export = tmp_path / "day.zip"
    export.write_bytes(_download(auditor, sealed_day))

    # Run apart from the project: a clean interpreter, in another folder, Python's library only.
    run = subprocess.run(
        [sys.executable, "-I", str(script), str(export)], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(r"OK: \d+ events verified", run.stdout)


def test_the_days_list_says_when_the_whole_chain_was_last_found_intact(auditor, sealed_day):
    from ledger.verify import verify_and_record

    page = auditor.get(reverse("workstations:audit-days")).content.decode()
    assert '<span data-figure="chain">not checked yet</span>' in page

    verify_and_record()

    page = auditor.get(reverse("workstations:audit-days")).content.decode()
    checked = Event.objects.count()
    assert re.search(
        rf'data-figure="chain">intact</strong>, {checked} events checked up to ledger position \d+, ', page
    )


def test_the_auditor_checks_the_whole_chain_from_his_page_and_a_second_ask_within_a_minute_walks_nothing(
    auditor, sealed_day, eager_tasks
):
    from ledger.models import ChainVerification

    assert ChainVerification.objects.count() == 0
    page = auditor.get(reverse("workstations:audit-days")).content.decode()
    assert 'data-form="chain-check"' in page and "Check the whole chain now" in page

    done = auditor.post(reverse("workstations:audit-chain-check"), follow=True).content.decode()
    assert "Whole chain checked now: intact." in done
    assert re.search(rf'data-figure="chain">intact</strong>, {Event.objects.count()} events checked', done)
    assert ChainVerification.objects.count() == 1

    again = auditor.post(reverse("workstations:audit-chain-check"), follow=True).content.decode()
    assert "checked less than a minute ago" in again
    assert ChainVerification.objects.count() == 1
