"""The audit trail API's summaries over a demo day read as words: every line of every trail
(table, round, patron) has its amounts through the money formatter and no ``key=value`` dump
or cent count, and the pit boss's pages word the same events the same way."""

import re

import pytest

from dashboard.table_reads import round_events
from games.models import Round
from ledger import projections
from ledger.models import AuditEntry
from staff.roles import Role
from tests.conftest import client_as, staff_user
from tests.integration.demo_days import play_small_demo_day

pytestmark = pytest.mark.django_db

DUMP = re.compile(r"\b[a-z_]+=")


def trail(client, scope: str, key: str) -> list[dict]:
    lines, url = [], f"/api/audit/{scope}/{key}/"
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content[:300]
        body = response.json()
        lines += body["results"]
        url = body.get("next")
    return lines


def test_no_audit_summary_of_a_demo_day_is_a_cent_count_or_a_key_dump():
    play_small_demo_day()
    projections.catch_up_all()
    auditor = client_as(staff_user("auditor1", Role.AUDITOR))
    keys = {
        "table": set(AuditEntry.objects.exclude(table=None).values_list("table", flat=True)),
        "patron": set(AuditEntry.objects.exclude(patron=None).values_list("patron", flat=True)[:6]),
        "round": {str(r) for r in Round.objects.values_list("id", flat=True)[:6]},
    }
    assert len(keys["table"]) == 6
    lines = [line for scope, codes in keys.items() for code in sorted(codes) for line in trail(auditor, scope, code)]
    assert len(lines) > 500
    bad = [
        (line["type"], line["summary"]) for line in lines if "_cents" in line["summary"] or DUMP.search(line["summary"])
    ]
    assert bad == []
    said = {(line["type"], line["summary"]) for line in lines}
    assert ("TableOpened", "table R1 opened (English roulette), opener 50,000.00 EUR") in said or any(
        kind == "TableOpened" and "(English roulette)" in words for kind, words in said
    )
    for kind in ("BetResolved", "DealerPlayed", "BoxDecided", "ShoeShuffled", "RakeTaken", "DropCounted", "FillIssued"):
        assert any(t == kind for t, _ in said), kind
    assert any(
        t == "BetResolved"
        and re.fullmatch(r"P\d{5}'s bet of [\d,]+\.\d\d EUR (won|lost|pushed), returns [\d,]+\.\d\d EUR", w)
        for t, w in said
    )
    assert any(
        t == "FillIssued"
        and re.fullmatch(r"fill \d{4}-\d{6} of [\d,]+\.\d\d EUR for R1 issued by demo-cashier, runner demo-runner", w)
        for t, w in said
    )
    # A settled coup's face-down cards show in full, to the auditor as on the coup audit page.
    caribbean = Round.objects.filter(table__code="C1", state=Round.State.SETTLED).first()
    api_words = [line["summary"] for line in trail(auditor, "round", str(caribbean.id))]
    page_words = [event["summary"] for event in round_events(str(caribbean.id), round_over=True)]
    dealt = [words for words in api_words if words.startswith("card ")]
    assert dealt and all(re.match(r"card (10|[2-9AKQJ])[♠♥♦♣] to ", words) for words in dealt), dealt
    assert set(dealt) <= set(page_words)
