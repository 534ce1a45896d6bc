"""Game protection on the ledger's raw readers: the open day's export and the Django admin's
event page withhold a face-down card of a coup in play — its value, and the hashes that would
give it away by trying the 52 cards — while the sealed export, once the coup is over, carries
every card as dealt."""

import io
import json
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from basis.face_down import without_card_value
from ledger.export.registry import ExportContext
from ledger.export.writer import event_records, export_zip_stream
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import seal_gaming_day
from ledger.withheld import HASH_WITHHELD
from tests.api.test_face_down_cards_hidden import DEALER, FACE_DOWN_CODES, PLAYER, mid_coup
from tests.conftest import ACTOR, client_as, staff_user

pytestmark = pytest.mark.django_db


def export_events(day) -> list[dict]:
    archive = zipfile.ZipFile(io.BytesIO(b"".join(export_zip_stream(day, include_identity=True))))
    return [json.loads(line) for line in archive.read("events.jsonl").decode().splitlines()]


def face_down(round_id: str) -> list[Event]:
    return list(Event.objects.filter(data__round=round_id, data__face="down").order_by("position"))


def test_the_open_days_export_has_no_face_down_card_of_a_coup_in_play(api, cage):
    stud, patron = mid_coup(api)
    hidden = face_down(stud.round)
    assert [e.data["card"] for e in hidden][:2] == ["2S", "5H"]  # the ledger keeps them
    events = export_events(current_gaming_day())
    text = json.dumps(events)
    assert not any(f'"card": "{code}"' in text for code in FACE_DOWN_CODES)
    # It ends right before the coup's first face-down card: neither it nor a hash of it.
    assert events[-1]["position"] == hidden[0].position - 1
    assert not {e.hash for e in hidden} & {h for e in events for h in (e["hash"], e["prev_hash"])}
    assert any(e["type"] == "RoundOpened" and e["data"]["round"] == stud.round for e in events)


def test_the_sealed_export_carries_the_face_down_cards_once_the_coup_is_over(api, cage):
    stud, patron = mid_coup(api)
    stud.decide(patron, "raise")  # the showdown settles the coup
    seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
    cards = [
        e["data"]["card"]
        for e in export_events(current_gaming_day())
        if e["type"] == "CardDealt" and e["data"]["round"] == stud.round
    ]
    assert cards == [code for pair in zip(PLAYER, DEALER, strict=True) for code in pair]


CARD_2S = "&quot;card&quot;: &quot;2S&quot;"  # as the admin shows the event's data


@pytest.fixture
def superuser(django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw"))
    return client


def test_the_admins_event_page_withholds_a_face_down_card_of_a_coup_in_play(api, cage, superuser):
    stud, patron = mid_coup(api)
    first = face_down(stud.round)[0]
    assert first.data["card"] == "2S"
    url = reverse("admin:ledger_event_change", args=[first.position])
    page = superuser.get(url).content.decode()
    assert "face down until the coup is over" in page
    assert CARD_2S not in page and first.hash not in page
    following = superuser.get(reverse("admin:ledger_event_change", args=[first.position + 1])).content.decode()
    assert first.hash not in following and HASH_WITHHELD in following

    stud.decide(patron, "raise")

    page = superuser.get(url).content.decode()
    assert CARD_2S in page and first.hash in page and "face down until the coup is over" not in page


def _guess_card(record: dict) -> str | None:
    """The card that makes ``record``'s hash, tried among the 52 (what anyone reading a hash
    and the rest of the envelope can do)."""
    from ledger.export.verify_export import event_hash

    for rank in "23456789TJQKA":
        for suit in "SHDC":
            guess = {**record, "data": {**record["data"], "card": rank + suit}}
            guess["data"].pop("card_hidden", None)
            if event_hash(guess) == record["hash"]:
                return rank + suit
    return None


def test_the_events_api_withholds_the_hashes_that_would_give_a_hole_card_away(api, cage):
    stud, patron = mid_coup(api)
    hidden = face_down(stud.round)[0]
    context = ExportContext(day=hidden.gaming_day, first=hidden.position, last=hidden.position, include_identity=False)
    (record,) = event_records(context)
    assert _guess_card({**record, "data": without_card_value(record["data"])}) == "2S"  # a hash shown gives it away

    shown = {e["position"]: e for e in client_as(staff_user("boss2", "pit_boss")).get("/api/events/").json()["results"]}
    assert shown[hidden.position]["data"]["card"] is None
    assert (shown[hidden.position]["hash"], shown[hidden.position + 1]["prev_hash"]) == (None, None)
    assert hidden.hash not in json.dumps(shown)

    stud.decide(patron, "raise")  # settled: the chain reads whole again
    shown = {e["position"]: e for e in client_as(staff_user("boss3", "pit_boss")).get("/api/events/").json()["results"]}
    assert (shown[hidden.position]["hash"], shown[hidden.position + 1]["prev_hash"]) == (hidden.hash, hidden.hash)


def test_the_audit_trail_api_withholds_a_hidden_cards_hash_until_the_coup_is_over(api, cage):
    from ledger import projections

    stud, patron = mid_coup(api)
    hidden = face_down(stud.round)[0]
    projections.catch_up_all()
    boss = client_as(staff_user("boss2", "pit_boss"))

    def hashes() -> dict[int, str | None]:
        return {
            line["position"]: line["hash"] for line in boss.get(f"/api/audit/round/{stud.round}/").json()["results"]
        }

    assert hashes()[hidden.position] is None
    stud.decide(patron, "raise")
    projections.catch_up_all()
    assert hashes()[hidden.position] == hidden.hash
