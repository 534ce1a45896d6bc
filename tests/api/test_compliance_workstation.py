"""The compliance officer's pages: the cases with their deadlines (overdue marked), the AML
flags waiting for a case, and a case's page whose forms run each step; other roles get 403;
nothing on a page shows a ledger position or a cent count, times in the casino's zone."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from compliance import services
from ledger.models import Event
from staff.services import staff_account_create
from tests.conftest import make_patron

pytestmark = pytest.mark.django_db

OFFICER = "officer1"
CASES = "/workstations/compliance/"


def log_in(client, username: str, *roles: str):
    staff_account_create(username=username, password="x", roles=list(roles), actor="manage.py")
    client.force_login(get_user_model().objects.get(username=username))
    return client


@pytest.fixture
def flagged(cage) -> dict:
    patron = make_patron(350_000)
    flag = Event.objects.get(stream=f"aml/{patron}", type="AmlTransactionLogged")
    return {"patron": patron, "flag": flag.position}


def body_text(response) -> str:
    html = response.content.decode()
    return re.sub(r"<[^>]+>", " ", html)


def test_other_roles_get_403_on_the_compliance_pages(client, flagged):
    services.suspicion_case_open(
        flag=flagged["flag"], reason="r", actor=log_in(client, OFFICER, "compliance") and OFFICER
    )
    for username, role in (("cash1", "cashier"), ("boss1", "pit_boss"), ("aud1", "auditor")):
        log_in(client, username, role)
        assert client.get(CASES).status_code == 403
        assert client.get(CASES + "cases/SC00001/").status_code == 403
        assert client.post(CASES + "cases/SC00001/findings", {"text": "t"}).status_code == 403
    assert Event.objects.filter(type="FindingsWritten").count() == 0


def test_an_officer_opens_a_case_from_a_flag_and_runs_it_to_a_filing_through_the_forms(client, flagged):
    log_in(client, OFFICER, "compliance")
    listing = client.get(CASES)
    assert listing.status_code == 200
    assert f'data-flag="AmlTransactionLogged" data-patron="{flagged["patron"]}"' in listing.content.decode()
    assert f"Test Patron ({flagged['patron']})" in body_text(listing)  # the person a report would name

    opened = client.post(CASES + "open", {"flag": str(flagged["flag"]), "reason": "cash in, no play"})
    assert opened.status_code == 302 and opened["Location"] == CASES + "cases/SC00001/"
    page = client.get(opened["Location"])
    text = body_text(page)
    assert "3,500.00 EUR" in text
    assert "350000" not in text
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d CES?T", text)
    assert "30 days left" in text
    assert f"Case SC00001 · Test Patron ({flagged['patron']})" in text
    assert re.search(r"Identity on file: Test Patron, document ID-TEST-\d{6}\.", text)

    for what, data in (
        ("findings", {"text": "Bought chips, played none."}),
        ("decide", {"decision": "file", "reason": "no gaming purpose"}),
        ("filing", {"kind": "TRACFIN", "reference": "DS-2026-0042", "filed_at": _local_now()}),
    ):
        done = client.post(CASES + f"cases/SC00001/{what}", data)
        assert done.status_code == 302, (what, body_text(client.get(CASES + "cases/SC00001/")))
    text = body_text(client.get(CASES + "cases/SC00001/"))
    assert "report filed" in text
    assert "reference  DS-2026-0042" in text or "reference DS-2026-0042" in text
    assert str(flagged["flag"]) not in re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "", text)
    assert [e.type for e in Event.objects.filter(stream="suspicion/SC00001").order_by("position")] == [
        "SuspicionCaseOpened",
        "TransactionsAttached",
        "FindingsWritten",
        "CaseDecided",
        "FilingRecorded",
    ]


def _local_now() -> str:
    from zoneinfo import ZoneInfo

    from django.conf import settings

    return timezone.now().astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%Y-%m-%dT%H:%M")


def test_a_step_out_of_order_is_refused_on_the_page_and_records_nothing(client, flagged):
    log_in(client, OFFICER, "compliance")
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    refused = client.post(CASES + "cases/SC00001/decide", {"decision": "file", "reason": "r"}, follow=True)
    assert "Refused: case SC00001 has no findings yet: write them before deciding. Nothing was recorded." in (
        body_text(refused)
    )
    assert not Event.objects.filter(type="CaseDecided").exists()


def test_a_case_past_its_deadline_is_marked_overdue_on_the_list(client, flagged, settings):
    log_in(client, OFFICER, "compliance")
    settings.COMPLIANCE_TRACFIN_DAYS = 0  # the target passed as soon as the case opened
    settings.AML_JURISDICTION = "FR"
    services.suspicion_case_open(flag=flagged["flag"], reason="r", actor=OFFICER)
    html = client.get(CASES).content.decode()
    assert '<tr data-case="SC00001" class="overdue">' in html
    assert "overdue" in body_text(client.get(CASES)).split("SC00001")[1]
