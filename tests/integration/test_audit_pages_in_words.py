"""The auditor's event pages over a demo day read as words: the page of one event of every
type the demo day records, and the event list of the day, show no Python repr (``: {``, an
object's class name), no code with underscores (``pit_boss``, ``chips:in_transit``), no count
keyed by cents (``100000: 1``): amounts in currency units, accounts, roles, hands and bets as
people name them."""

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from ledger.models import Event
from staff.roles import Role
from tests.conftest import staff_user
from tests.integration.demo_days import play_small_demo_day

pytestmark = pytest.mark.django_db

# What a page must never show in its text (tags, attributes and URLs left out).
REPR = re.compile(r"[:=]\s*[{\[]|\b(DrawTarget|None|True|False)\b|\b[A-Z][a-z]+[A-Z]\w*\(")
CODE = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z]+:[a-z_:]+\b|\b[a-z]+:[A-Z0-9]+:[a-z_]+\b")
CENTS_COUNT = re.compile(r"(?<![\d:])\d+:\s+\d+\b(?![.,\d])")
# A page's secondary references (stream ids, hashes) and its type code aside are not its words.
ASIDE = re.compile(
    r'<(small|span|dd|code)[^>]*class="[^"]*\bhash\b[^"]*"[^>]*>.*?</\1>|<code data-figure="type">.*?</code>', re.S
)


def text_of(page: str) -> str:
    body = page[page.index("<main") :] if "<main" in page else page
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    body = ASIDE.sub(" ", body)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def faults(text: str) -> list[str]:
    found = []
    for pattern in (REPR, CODE, CENTS_COUNT):
        for match in pattern.finditer(text):
            found.append(" ".join(text[max(0, match.start() - 30) : match.end() + 20].split()))
    return found


def test_every_event_page_of_a_demo_day_and_its_list_read_as_words():
    play_small_demo_day()
    auditor = Client()
    auditor.force_login(staff_user("auditor1", Role.AUDITOR))
    examples: dict[str, list[int]] = {}
    for position, kind in Event.objects.order_by("position").values_list("position", "type"):
        if len(examples.setdefault(kind, [])) < 3:
            examples[kind].append(position)
    assert len(examples) > 40
    bad, pages = {}, {}
    for kind, positions in sorted(examples.items()):
        for position in positions:
            response = auditor.get(reverse("workstations:audit-event", args=[position]))
            assert response.status_code == 200, (kind, position)
            text = " ".join(text_of(response.content.decode()).split())
            pages[kind] = text
            if found := faults(text):
                bad[f"{kind} at {position}"] = found[:6]
    lists = ""
    days = sorted({d.isoformat() for d in Event.objects.values_list("gaming_day", flat=True)})
    for day in days:
        url = reverse("workstations:audit-events")
        page = 1
        while True:
            response = auditor.get(url, {"gaming_day": day, "page": page})
            assert response.status_code == 200
            lists += " ".join(text_of(response.content.decode()).split())
            if found := faults(text_of(response.content.decode())):
                bad[f"list of {day} page {page}"] = found[:20]
            if f"page={page + 1}" not in response.content.decode():
                break
            page += 1
    assert bad == {}
    # What the auditor found, in words: a count as pieces × denomination with its total, a
    # card's target, a shoe by its number, accounts by their labels, roles and the AML type.
    assert "counted 1 × 1,000 EUR (total 1,000.00 EUR)" in pages["FillDelivered"]
    assert "Chips in transit -1,000.00 EUR" in pages["FillDelivered"]
    # The data's rows in the stored key order (PostgreSQL's jsonb orders them, SQLite keeps them).
    dealt = pages["CardDealt"]
    assert re.search(r"to player's box \d, hand 1\b", dealt) and "shoe Shoe 1 at B1" in dealt
    assert re.search(r"card (10|[2-9AKQJ])[♠♥♦♣]", dealt)
    assert re.search(r"Table [A-Z]\d tray", pages["TableOpened"])
    assert "Roles of demo-pitboss: pit boss (were: none)" in lists
    assert "AML identity checked" in lists
