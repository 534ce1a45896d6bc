"""Game protection of the hash chain: each hash is of an event's data and of the hash before it,
so the hash of a hole card, and every hash after it, would give the card away to anyone trying
the 52 cards against the rest of the envelope. Every reader that shows hashes withholds them
from the first face-down card of a coup in play onwards, until that coup is over; the sealed
export carries them all."""

import io
import json
import re
import zipfile
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from ledger import projections
from ledger.errors import StateConflict
from ledger.export.registry import ExportContext
from ledger.export.verify_export import event_hash
from ledger.export.writer import event_records, export_zip_stream
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import seal_gaming_day
from ledger.withheld import HASH_WITHHELD
from staff.roles import Role
from tests.api.test_blackjack_table_refuses_bad_play import Table as BlackjackTable
from tests.conftest import ACTOR, client_as, make_patron, staff_user

pytestmark = pytest.mark.django_db

CARDS = [rank + suit for rank in "23456789TJQKA" for suit in "SHDC"]


def hole_card_coup(api):
    """A black jack coup at a hole-card table: box, up card, box, the ace in the hole; the box
    stands on 18 later. Returns the table, the patron and the hole card's event."""
    bj = BlackjackTable(api, rules={"hole_card": True})
    patron = make_patron(10_000)
    bj.coup([(patron, 1, 2_000, True)])
    bj.cards("TS", "9D", "8H", "AH")
    hole = Event.objects.get(type="CardDealt", data__round=bj.round, data__card="AH")
    assert hole.data["face"] == "hole"
    # An event after the card, on another stream, is in the chain too.
    make_patron(500)
    assert Event.objects.filter(position__gt=hole.position).exclude(stream=hole.stream).exists()
    return bj, patron, hole


def all_events(client) -> dict[int, dict]:
    """Every event the events API shows, page after page, by position."""
    events, url = {}, "/api/events/"
    while url:
        body = client.get(url).json()
        events |= {e["position"]: e for e in body["results"]}
        url = body["next"]
    return events


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return unescape(response.content.decode())


def everything_shown(bj, hole: Event) -> str:
    """All that the readers that show hashes show, as text: the events API, the audit trail
    API, the auditor's days and event pages, the pit boss's coup audit, the admin's event page
    and the open day's export."""
    projections.catch_up_all()
    reader = client_as(staff_user(f"boss{Event.objects.count()}", Role.PIT_BOSS))
    shown = [json.dumps(all_events(reader))]
    for trail in (f"/api/audit/round/{bj.round}/", f"/api/audit/table/{bj.code}/"):
        shown.append(json.dumps(reader.get(trail).json()))
    auditor, pit_boss, admin = Client(), Client(), Client()
    auditor.force_login(staff_user(f"aud{Event.objects.count()}", Role.AUDITOR))
    pit_boss.force_login(staff_user(f"pit{Event.objects.count()}", Role.PIT_BOSS))
    root = staff_user(f"root{Event.objects.count()}", Role.ADMIN)
    root.is_staff = root.is_superuser = True
    root.save()
    admin.force_login(root)
    last = Event.objects.order_by("-position").first().position
    shown.append(_page(auditor, reverse("workstations:audit-days")))
    shown.append(_page(auditor, reverse("workstations:audit-day", args=[current_gaming_day()])))
    for position in (hole.position - 1, hole.position, hole.position + 1, last):
        shown.append(_page(auditor, reverse("workstations:audit-event", args=[position])))
        shown.append(_page(admin, reverse("admin:ledger_event_change", args=[position])))
    shown.append(_page(pit_boss, f"/dashboard/coups/{bj.round}/audit/"))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(export_zip_stream(current_gaming_day(), include_identity=True))))
    # The .sig members are raw signature bytes over these same texts: nothing more to read there.
    shown += [archive.read(name).decode() for name in archive.namelist() if not name.endswith(".sig")]
    return "\n".join(shown)


def test_no_hash_from_a_hole_card_onwards_is_shown_until_the_coup_is_over(api, cage):
    bj, patron, hole = hole_card_coup(api)
    secrets = list(Event.objects.filter(position__gte=hole.position).values_list("hash", flat=True))

    shown = everything_shown(bj, hole)
    assert not [h for h in secrets if h in shown or h[:12] in shown]
    assert Event.objects.get(position=hole.position - 1).hash in shown  # the chain before it shows
    events = all_events(client_as(staff_user("cashier2", Role.CASHIER)))
    assert {k: events[hole.position + 1][k] for k in ("hash", "prev_hash", "hash_withheld")} == {
        "hash": None,
        "prev_hash": None,
        "hash_withheld": True,
    }
    assert events[hole.position - 1]["hash_withheld"] is False
    assert HASH_WITHHELD in _page(*_auditor_and_event(hole.position + 1))

    bj.ok(patron, "stand")  # the dealer turns his hole card: the coup is settled

    secrets = list(Event.objects.filter(position__gte=hole.position).values_list("hash", flat=True))
    shown = everything_shown(bj, hole)
    assert [h for h in secrets if h not in shown] == []
    events = all_events(client_as(staff_user("cashier3", Role.CASHIER)))
    assert (events[hole.position]["hash"], events[hole.position + 1]["prev_hash"]) == (hole.hash, hole.hash)
    assert not any(e["hash_withheld"] for e in events.values())


def _auditor_and_event(position: int) -> tuple[Client, str]:
    auditor = Client()
    auditor.force_login(staff_user(f"aud-event{position}", Role.AUDITOR))
    return auditor, reverse("workstations:audit-event", args=[position])


def test_trying_the_52_cards_matches_no_hash_shown_while_the_coup_is_in_play(api, cage):
    bj, patron, hole = hole_card_coup(api)
    day = hole.gaming_day
    last = Event.objects.order_by("-position").first().position
    records = list(event_records(ExportContext(day=day, first=hole.position, last=last, include_identity=True)))
    shown = everything_shown(bj, hole)

    def chain_from(card: str) -> list[str]:
        """Every hash from the hole card on, were ``card`` the hole card (the attacker is even
        given the total it makes)."""
        hashes, prev = [], records[0]["prev_hash"]
        for record in records:
            data = {**record["data"], "card": card} if record["position"] == hole.position else record["data"]
            prev = event_hash({**record, "data": data, "prev_hash": prev})
            hashes.append(prev)
        return hashes

    assert chain_from("AH") == [r["hash"] for r in records]  # the guess that is right remakes the chain
    found = [card for card in CARDS if any(h in shown for h in chain_from(card))]
    assert found == []


def test_the_sealed_export_carries_every_hash_once_the_coup_is_over(api, cage):
    bj, patron, hole = hole_card_coup(api)
    bj.ok(patron, "stand")
    seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
    archive = zipfile.ZipFile(io.BytesIO(b"".join(export_zip_stream(current_gaming_day(), include_identity=True))))
    lines = [json.loads(line) for line in archive.read("events.jsonl").decode().splitlines()]
    exported = {line["position"]: line["hash"] for line in lines}
    assert exported[hole.position] == hole.hash
    assert [line["data"]["card"] for line in lines if line["position"] == hole.position] == ["AH"]
    manifest = json.loads(archive.read("manifest.json"))
    assert re.fullmatch(r"[0-9a-f]{64}", manifest["chain_head/hash"][0])


def test_a_day_is_not_sealed_while_a_hole_card_of_its_range_is_in_play(api, cage):
    """The seal shows its range's last hash, and its signature checks any guess of it."""
    bj, patron, hole = hole_card_coup(api)
    with pytest.raises(StateConflict, match="a face-down card of a coup still in play lies in its range"):
        seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
    assert not Event.objects.filter(type="GamingDaySealed").exists()

    bj.ok(patron, "stand")

    assert seal_gaming_day(day=current_gaming_day(), actor=ACTOR)["last_position"] > hole.position
