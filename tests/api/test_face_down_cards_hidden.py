"""Game protection: a card dealt face down is not shown to anyone while its coup is in play,
on the pit boss's table page (the play feed), the coup audit page and the audit trail API (pit
boss and cashier alike); once the coup is settled or voided the full card shows, for audit.
The ledger's events keep the card as dealt."""

import re
from html import unescape

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ledger import projections
from ledger.models import Event
from ledger.withheld import HASH_WITHHELD
from staff.roles import Role
from tests.api.test_caribbean_cases import StudTable
from tests.conftest import client_as, cosigned, make_patron, staff_user

pytestmark = pytest.mark.django_db

# Dealt in turn: box 1, dealer, box 1, dealer… (the dealer's last card, 3♣, is shown face up).
PLAYER = ["2S", "7H", "9C", "JD", "4S"]
DEALER = ["5H", "KH", "8C", "TD", "3C"]


def text(response) -> str:
    assert response.status_code == 200
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def api_lines(client, round_id: str) -> list[str]:
    projections.catch_up_all()
    response = client.get(f"/api/audit/round/{round_id}/")
    assert response.status_code == 200, response.json()
    return [line["summary"] for line in response.json()["results"] if line["type"] == "CardDealt"]


def mid_coup(api):
    stud = StudTable(api)
    patron = make_patron(10_000)
    stud.coup([(patron, 1, 1_000)])
    for mine, his in zip(PLAYER, DEALER, strict=True):
        for card in (mine, his):
            assert api.post(f"/api/rounds/{stud.round}/cards", {"card": card}, format="json").status_code == 200
    return stud, patron


def test_a_face_down_card_is_not_shown_while_the_coup_is_in_play_and_shown_once_it_is_settled(api, cage, pit_boss):
    stud, patron = mid_coup(api)
    boss_api = client_as(staff_user("boss2", Role.PIT_BOSS))
    cashier_api = client_as(staff_user("cashier2", Role.CASHIER))

    feed = text(pit_boss.get("/dashboard/tables/C1/"))
    audit = text(pit_boss.get(f"/dashboard/coups/{stud.round}/audit/"))
    for page in (feed, audit):
        assert "card to dealer, face down" in page and "card to box 1, face down" in page
        assert "card 3♣ to dealer, face up" in page  # the dealer's shown card
        for hidden in ("5♥", "K♥", "8♣", "10♦", "2♠", "7♥", "9♣", "J♦", "4♠"):
            assert hidden not in page, hidden
    for reader in (boss_api, cashier_api):
        lines = api_lines(reader, stud.round)
        assert lines[:2] == ["card to box 1, face down", "card to dealer, face down"]
        assert lines[-1] == "card 3♣ to dealer, face up"
        assert not any(code in line for line in lines for code in ("5H", "TD", "5♥", "10♦", "card=", "face="))
    # The ledger keeps what was dealt.
    dealt = Event.objects.filter(type="CardDealt", data__round=stud.round).order_by("position")
    assert [e.data["card"] for e in dealt][:2] == ["2S", "5H"]

    stud.decide(patron, "raise")  # the showdown settles the coup

    audit = text(pit_boss.get(f"/dashboard/coups/{stud.round}/audit/"))
    assert "card 5♥ to dealer, face down" in audit and "card 10♦ to dealer, face down" in audit
    assert "card 2♠ to box 1, face down" in audit
    for reader in (boss_api, cashier_api):
        lines = api_lines(reader, stud.round)
        assert lines[:2] == ["card 2♠ to box 1, face down", "card 5♥ to dealer, face down"]


def test_a_voided_coup_shows_its_face_down_cards_to_the_audit(api, cage, pit_boss):
    stud = StudTable(api)
    stud.coup([(make_patron(10_000), 1, 1_000)])
    for card in ("AS", "KD"):
        assert api.post(f"/api/rounds/{stud.round}/cards", {"card": card}, format="json").status_code == 200
    assert cosigned(api.post(f"/api/rounds/{stud.round}/void", {"reason": "misdeal"}, format="json")).status_code == 200
    audit = text(pit_boss.get(f"/dashboard/coups/{stud.round}/audit/"))
    assert "card K♦ to dealer, face down" in audit
    assert api_lines(client_as(staff_user("boss2", Role.PIT_BOSS)), stud.round) == [
        "card A♠ to box 1, face down",
        "card K♦ to dealer, face down",
    ]


def test_classic_stud_hole_cards_are_not_shown_while_the_hand_plays(api, cage, pit_boss):
    from tests.api.test_classic_stud_api import StudTable as ClassicStud

    s1 = ClassicStud(api, "S1", rake_pct=5)
    p1, p2 = make_patron(10_000), make_patron(10_000)
    s1.hand((p1, 1), (p2, 2))
    s1.cards("KS", "3C", "9H", "QS")  # hole cards, then an up card each
    feed = text(pit_boss.get("/dashboard/tables/S1/"))
    # The table's feed names the patron, his code second; the API gives the code.
    assert f"card to seat 1 (Test Patron, {p1}), hole card, face down" in feed
    assert f"card 9♥ to seat 1 (Test Patron, {p1}), face up" in feed
    assert "K♠" not in feed and "3♣" not in feed
    lines = api_lines(client_as(staff_user("cashier2", Role.CASHIER)), s1.round)
    assert lines == [
        f"card to seat 1 ({p1}), hole card, face down",
        f"card to seat 2 ({p2}), hole card, face down",
        f"card 9♥ to seat 1 ({p1}), face up",
        f"card Q♠ to seat 2 ({p2}), face up",
    ]


FACE_DOWN_CODES = ("5H", "KH", "8C", "TD", "2S", "7H", "9C", "JD", "4S")


def raw_events(client, round_id: str) -> list[dict]:
    response = client.get("/api/events/", {"correlation_id": round_id})
    assert response.status_code == 200, response.json()
    return response.json()["results"]


def dealt(events: list[dict]) -> list[dict]:
    return [e["data"] for e in events if e["type"] == "CardDealt"]


@pytest.fixture
def auditor() -> Client:
    client = Client()
    client.force_login(staff_user("aud2", Role.AUDITOR))
    return client


def event_page(auditor: Client, position: int) -> str:
    return text(auditor.get(reverse("workstations:audit-event", args=[position])))


def test_the_raw_events_api_hides_a_face_down_card_while_the_coup_is_in_play_and_shows_it_once_settled(api, cage):
    stud, patron = mid_coup(api)
    stored = {e.position: e.data for e in Event.objects.filter(type="CardDealt", data__round=stud.round)}
    for reader in (client_as(staff_user("boss2", Role.PIT_BOSS)), client_as(staff_user("cashier2", Role.CASHIER))):
        events = raw_events(reader, stud.round)
        cards = dealt(events)
        assert len(cards) == 10
        assert [c["card"] for c in cards] == [None] * 9 + ["3C"]  # only the dealer's face-up card
        assert [c.get("card_hidden") for c in cards[:2]] == ["face down until the coup is over"] * 2
        assert "card_hidden" not in cards[-1]
        assert cards[0]["face"] == "down" and cards[0]["box"] == 1 and cards[0]["round"] == stud.round
        body = str(events)
        assert not any(f"'{code}'" in body for code in FACE_DOWN_CODES)
        # A hidden card's hash would give it away (52 guesses), and so would every later one
        # (chained to it): from the coup's first face-down card on they read null.
        for event in events:
            if event["type"] == "CardDealt":
                assert (event["hash"], event["prev_hash"], event["hash_withheld"]) == (None, None, True)
    # The ledger keeps the cards as dealt.
    assert [stored[p]["card"] for p in sorted(stored)][:2] == ["2S", "5H"]

    stud.decide(patron, "raise")  # the showdown settles the coup

    for reader in (client_as(staff_user("boss3", Role.PIT_BOSS)), client_as(staff_user("cashier3", Role.CASHIER))):
        cards = dealt(raw_events(reader, stud.round))
        assert [c["card"] for c in cards] == [code for pair in zip(PLAYER, DEALER, strict=True) for code in pair]
        assert not any("card_hidden" in c for c in cards)
        assert cards[0] == stored[min(stored)]


def test_the_raw_events_api_reads_the_coups_states_once_a_page(api, cage):
    stud, patron = mid_coup(api)
    reader = client_as(staff_user("boss2", Role.PIT_BOSS))
    with CaptureQueriesContext(connection) as queries:
        assert len(dealt(raw_events(reader, stud.round))) == 10
    assert sum('"games_round"' in q["sql"] for q in queries.captured_queries) == 1


def test_the_raw_events_api_shows_a_voided_coups_face_down_cards(api, cage):
    stud = StudTable(api)
    stud.coup([(make_patron(10_000), 1, 1_000)])
    for card in ("AS", "KD"):
        assert api.post(f"/api/rounds/{stud.round}/cards", {"card": card}, format="json").status_code == 200
    boss = client_as(staff_user("boss2", Role.PIT_BOSS))
    assert [c["card"] for c in dealt(raw_events(boss, stud.round))] == [None, None]
    assert cosigned(api.post(f"/api/rounds/{stud.round}/void", {"reason": "misdeal"}, format="json")).status_code == 200
    assert [c["card"] for c in dealt(raw_events(boss, stud.round))] == ["AS", "KD"]


def test_the_raw_events_api_hides_classic_stud_hole_cards_while_the_hand_plays(api, cage):
    from tests.api.test_classic_stud_api import StudTable as ClassicStud

    s1 = ClassicStud(api, "S1", rake_pct=5)
    s1.hand((make_patron(10_000), 1), (make_patron(10_000), 2))
    s1.cards("KS", "3C", "9H", "QS")
    cards = dealt(raw_events(client_as(staff_user("cashier2", Role.CASHIER)), s1.round))
    assert [(c["face"], c["card"], c.get("card_hidden")) for c in cards] == [
        ("hole", None, "face down until the coup is over"),
        ("hole", None, "face down until the coup is over"),
        ("up", "9H", None),
        ("up", "QS", None),
    ]


def test_the_auditors_event_page_hides_a_face_down_card_while_the_coup_is_in_play_and_shows_it_once_settled(
    api, cage, auditor
):
    stud, patron = mid_coup(api)
    down, up = (
        Event.objects.filter(type="CardDealt", data__round=stud.round, data__card=code).get() for code in ("5H", "3C")
    )

    page = event_page(auditor, down.position)
    assert "card hidden until the coup is over" in page  # the data table's card row
    assert "Card to dealer, face down" in page  # what it says, in words
    assert down.hash[:16] not in page  # a hash, even cut short, would give the card away
    assert "5H" not in page and "5♥" not in page
    assert "card 3♣" in event_page(auditor, up.position)  # a face-up card shows as dealt, as people write it

    stud.decide(patron, "raise")  # the showdown settles the coup

    page = event_page(auditor, down.position)
    assert "card 5♥" in page and "Card 5♥ to dealer, face down" in page and down.hash in page
    assert "hidden until the coup is over" not in page


def test_the_pit_bosss_coup_audit_withholds_a_face_down_cards_hash_until_the_coup_is_over(api, cage, pit_boss):
    """A hash is of the card as recorded: with the rest of the envelope on the page, 52 guesses
    would find the card, so neither its hash nor any later hash is shown mid-coup."""
    stud, patron = mid_coup(api)
    down = Event.objects.filter(type="CardDealt", data__round=stud.round, data__card="5H").get()
    after = Event.objects.get(position=down.position + 1)

    page = pit_boss.get(f"/dashboard/coups/{stud.round}/audit/").content.decode()
    assert down.hash[:12] not in page and down.hash not in page
    assert after.prev_hash == down.hash and after.hash not in page
    assert HASH_WITHHELD in page

    stud.decide(patron, "raise")  # the showdown settles the coup

    page = pit_boss.get(f"/dashboard/coups/{stud.round}/audit/").content.decode()
    assert down.hash in page and after.hash in page and HASH_WITHHELD not in page


def test_a_black_jack_hole_card_is_withheld_from_every_reader_until_the_coup_is_over(api, cage, pit_boss):
    """With a hole card the dealer's second card of the deal lies face down: the events API, the
    pit boss's coup audit and the admin's event page withhold it, and the total it makes."""
    from tests.api.test_blackjack_table_refuses_bad_play import Table as BlackjackTable

    bj = BlackjackTable(api, rules={"hole_card": True})
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "9D", "8H", "AH")  # box, up, box, hole: 18 against 9 up, the ace in the hole
    hole = Event.objects.get(type="CardDealt", data__round=bj.round, data__card="AH")
    assert hole.data["face"] == "hole"

    cards = dealt(raw_events(client_as(staff_user("cashier2", Role.CASHIER)), bj.round))
    shown = {c["index"]: (c["card"], c.get("total")) for c in cards}
    assert shown[hole.data["index"]] == (None, None)
    audit = pit_boss.get(f"/dashboard/coups/{bj.round}/audit/").content.decode()
    assert "A♥" not in audit and hole.hash not in audit
    admin = staff_user("root", Role.ADMIN)
    admin.is_staff = admin.is_superuser = True
    admin.save()
    browser = Client()
    browser.force_login(admin)
    page = browser.get(f"/admin/ledger/event/{hole.position}/change/").content.decode()
    assert '"AH"' not in page and "AH" not in re.sub(r"<[^>]+>", " ", page).split()

    bj.ok(p, "stand")  # the dealer turns his hole card and plays: the coup is settled
    cards = dealt(raw_events(client_as(staff_user("cashier3", Role.CASHIER)), bj.round))
    assert {c["index"]: c["card"] for c in cards}[hole.data["index"]] == "AH"
