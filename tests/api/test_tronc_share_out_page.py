"""The cage supervisor shares the tips pool out from the cage workstation's tronc page, as
himself: the page shows the pool, today's tip boxes counted and every employee who may share
with the scheme's points; unticked staff get nothing, typed points count, a bad figure is
refused keeping what was typed, a form sent twice shares once; a cashier reads the page but
cannot share."""

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from ledger import accounts, store
from ledger.models import Event
from tests.api.test_tips_tronc import _counted
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@pytest.fixture
def pool(table):
    """27.00 EUR in the pool (a tip box of R1) and the people of the floor."""
    people = {
        "count1": staff_user("count1", "count_team"),
        "count2": staff_user("count2", "count_team"),
        "pit": staff_user("pit1", "pit_boss"),
        "super": staff_user("super1", "cage_supervisor"),
        "dealer": staff_user("dealer7", "dealer"),
        "till": staff_user("till1", "cashier"),
        "auditor": staff_user("audit1", "auditor"),
    }
    assert _counted(people, "count1").status_code == 201
    return people


def _as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_page_shows_the_pool_the_boxes_counted_and_who_shares(pool):
    page = _as(pool["super"]).get(reverse("workstations:cage-tronc"))
    assert page.status_code == 200
    words = text(page)
    assert "In the pool now 27.00 EUR" in words
    assert re.search(r"table R1 17\.00 EUR 10\.00 EUR 27\.00 EUR count1, count2 pit1", words)
    html = page.content.decode()
    shown = re.findall(r'name="points-([\w.-]+)"[^>]*value="(\d+)"', html)
    # The scheme's points; the auditor is no employee of the floor, nor the test's own actor.
    assert ("count1", "8") in shown and ("dealer7", "10") in shown and ("pit1", "12") in shown
    assert "audit1" not in dict(shown)


def test_a_share_out_from_the_page_pays_the_ticked_staff_by_their_points(pool):
    boss = _as(pool["super"])
    form = {
        "idempotency_key": "tronc-form-1",
        "share": ["dealer7", "count1"],
        "points-dealer7": "10",
        "points-count1": "5",
    }
    sent = boss.post(reverse("workstations:cage-tronc-share"), form)
    assert sent.status_code == 302
    event = Event.objects.get(type="TroncShared")
    assert event.actor == "super1"
    # 2,700 × 10/15 = 1,800 and 2,700 × 5/15 = 900: nothing carried.
    assert event.data["shares"] == [
        {"username": "count1", "points": 5, "share_cents": 900},
        {"username": "dealer7", "points": 10, "share_cents": 1_800},
    ]
    assert store.balance(accounts.TRONC) == 0
    again = boss.post(reverse("workstations:cage-tronc-share"), form)
    assert again.status_code == 302 and Event.objects.filter(type="TroncShared").count() == 1
    page = text(boss.get(sent["Location"]))
    assert "Already recorded" in page
    assert "by super1: pool 27.00 EUR, shared 27.00 EUR, carried 0.00 EUR" in page


def test_points_that_are_not_a_whole_number_are_refused_keeping_what_was_typed(pool):
    form = {"idempotency_key": "tronc-form-2", "share": ["dealer7"], "points-dealer7": "ten", "points-count1": "7"}
    refused = _as(pool["super"]).post(reverse("workstations:cage-tronc-share"), form)
    assert refused.status_code == 400
    assert "Staff : Points of dealer7: a whole number from 0 to 1000" in text(refused)
    html = refused.content.decode()
    assert 'name="points-dealer7" aria-label="Points of dealer7" inputmode="numeric" size="4" value="ten"' in html
    assert re.search(r'value="count1" id="share-count1">', html)  # unticked, as sent
    assert not Event.objects.filter(type="TroncShared").exists()


def test_a_cashier_reads_the_pool_but_cannot_share_it(pool):
    desk = _as(pool["till"])
    page = desk.get(reverse("workstations:cage-tronc"))
    assert page.status_code == 200 and "Share the pool out" not in text(page)
    sent = desk.post(reverse("workstations:cage-tronc-share"), {"share": ["dealer7"], "points-dealer7": "10"})
    assert sent.status_code == 403
    assert not Event.objects.filter(type="TroncShared").exists()
