"""The count room's page through Django's test client, each person logged in as himself: a drop
box removed by two people (the second confirming from his own login), counted by two counters,
recounted blind by a verifier, the master game report signed, a tip box counted with a manager.
Each refusal of a service is shown on the page at its status (400, 403, 404, 409) with nothing
recorded; the page is for the drop team, the count team and the pit boss only."""

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from approvals.models import Approval
from ledger import store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from tests.conftest import approve, staff_clients, staff_user

pytestmark = pytest.mark.django_db

PAGE = "/workstations/count-room/"


def logged_in(username: str, *roles: str) -> Client:
    client = Client()
    client.force_login(staff_user(username, *roles))
    return client


def text(response) -> str:
    words = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))
    return re.sub(r" ([:,.])", r"\1", words)


@pytest.fixture
def room(cage, patron):
    """Table T1 opened by pit1 with dealer1, a 300 EUR cash buy-in at it; the people of the
    count room logged in (pages), pit1 and dealer1 by API."""
    api = staff_clients({"pit1": "pit_boss", "dealer1": "dealer"})
    body = {"game": "english_roulette", "opener": {"100000": 50}, "dealer": "dealer1", "pit_boss": "pit1", "rules": {}}
    assert approve(api["pit1"].post("/api/tables/T1/opener", body, format="json"), api["dealer1"]).status_code == 201
    bought = api["pit1"].post("/api/tables/T1/buy-ins", {"patron": patron, "amount_cents": 30_000}, format="json")
    assert bought.status_code == 201, bought.content
    people = {
        name: logged_in(name, role)
        for name, role in {
            "drop1": "drop_team",
            "drop2": "drop_team",
            "count1": "count_team",
            "count2": "count_team",
            "count3": "count_team",
            "pit2": "pit_boss",
            "super2": "cage_supervisor",
            "cashier9": "cashier",
        }.items()
    }
    people["day"] = current_gaming_day().isoformat()
    return people


def remove(room, who="drop1", other="drop2", table="T1"):
    return room[who].post(
        reverse("workstations:count-room-remove"), {"table": table, "gaming_day": room["day"], "second_remover": other}
    )


def confirm(client, kind):
    approval = Approval.objects.get(kind=kind, state="pending")
    return client.post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]))


def removed(room):
    assert remove(room).status_code == 302
    assert confirm(room["drop2"], "drop_box_remove").status_code == 302


def count(room, cash=None, who="count1", other="count2"):
    data = {"table": "T1", "gaming_day": room["day"], "second_counter": other}
    data |= {f"cash-{d}": n for d, n in (cash or {"20000": "1", "10000": "1"}).items()}
    return room[who].post(reverse("workstations:count-room-count"), data)


def counted(room):
    assert count(room).status_code == 302
    assert confirm(room["count2"], "drop_count").status_code == 302


def recount(room, cash, who="count3"):
    data = {"table": "T1", "gaming_day": room["day"]} | {f"cash-{d}": n for d, n in cash.items()}
    return room[who].post(reverse("workstations:count-room-recount"), data, follow=True)


def test_the_count_room_opens_to_the_drop_team_the_count_team_a_pit_boss_and_a_cage_supervisor_only(room, client):
    for name in ("drop1", "count1", "pit2", "super2"):
        page = room[name].get(PAGE)
        assert page.status_code == 200 and "Count room: gaming day" in text(page)
    assert room["cashier9"].get(PAGE).status_code == 403
    assert logged_in("dealer7", "dealer").get(PAGE).status_code == 403
    assert client.get(PAGE).status_code == 302
    assert (
        room["cashier9"].post(reverse("workstations:count-room-sign"), {"gaming_day": room["day"]}).status_code == 403
    )
    # The drop team sees the removal but no count form; the pit boss no count form either.
    drop_page = room["drop1"].get(PAGE).content.decode()
    assert 'data-form="remove"' in drop_page and 'data-form="count"' not in drop_page
    assert 'data-form="tips"' in room["pit2"].get(PAGE).content.decode()
    # A pit boss reaches it from the floor's navigation.
    assert f'href="{PAGE}">Count room</a>' in room["pit2"].get("/dashboard/").content.decode()


def test_a_count_team_member_lands_on_the_count_room_when_he_logs_in(room):
    user = staff_user("drop8", "drop_team")
    user.set_password("count-room-secret-8")
    user.save()
    landed = Client().post(reverse("workstations:login"), {"username": "drop8", "password": "count-room-secret-8"})
    assert landed.status_code == 302 and landed["Location"] == PAGE


def test_a_drop_box_removal_waits_for_the_second_remover_who_confirms_from_his_own_login(room):
    sent = room["drop1"].post(
        reverse("workstations:count-room-remove"),
        {"table": "T1", "gaming_day": room["day"], "second_remover": "drop2"},
        follow=True,
    )
    assert "removed by you and drop2. It is recorded when drop2 confirms from his own login" in text(sent)
    assert not Event.objects.filter(type="DropBoxRemoved").exists()
    approval = Approval.objects.get(kind="drop_box_remove", state="pending")
    mine = text(room["drop1"].get(PAGE))
    assert "Your requests waiting for a signature (1)" in mine and "drop2, from his own login" in mine
    theirs = text(room["drop2"].get(PAGE))
    assert "Waiting for your signature (1)" in theirs
    assert f"Drop box removed by drop1 and drop2 T1 {room['day']}" in theirs
    assert str(approval.id) not in theirs  # no raw id shown, only in the form's address
    assert "Waiting for your signature (0)" in text(room["count3"].get(PAGE))  # not named: nothing to sign
    done = room["drop2"].post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]), follow=True)
    assert f"Signed: the drop box of table T1 (gaming day {room['day']}) is recorded removed." in text(done)
    event = Event.objects.get(type="DropBoxRemoved")
    assert (event.actor, event.data["removers"]) == ("drop1", ["drop1", "drop2"])
    assert "T1 Removed drop1 and drop2" in text(room["count1"].get(PAGE))


def test_a_removal_is_refused_on_the_page_without_a_second_remover_twice_the_same_person_or_the_tables_pit(room):
    head = store.head()
    alone = remove(room, other="")
    assert alone.status_code == 400
    assert "Second remover: name the second person who removed the box with you" in text(alone)
    same = remove(room, other="drop1")
    assert same.status_code == 403 and "drop1 is already the first remover; segregation of duties" in text(same)
    own_pit = remove(room, other="pit1")
    assert own_pit.status_code == 403 and "pit1 is the pit boss of table T1" in text(own_pit)
    nobody = remove(room, table="T9")
    assert nobody.status_code == 404 and "Table: no table 'T9'" in text(nobody)
    bad_day = room["drop1"].post(
        reverse("workstations:count-room-remove"),
        {"table": "T1", "gaming_day": "2000-01-01", "second_remover": "drop2"},
    )
    assert bad_day.status_code == 400 and "Gaming day: gaming day 2000-01-01 is out of reach" in text(bad_day)
    assert store.head() == head
    removed(room)
    again = remove(room)
    assert again.status_code == 409 and "the drop box of T1 for" in text(again) and "is already removed" in text(again)
    # What was typed stays in the refused form.
    assert 'value="drop2"' in again.content.decode()


def test_a_drop_box_is_counted_by_two_counters_the_second_confirming_and_shown_in_currency_units(room):
    removed(room)
    sent = room["count1"].post(
        reverse("workstations:count-room-count"),
        {"table": "T1", "gaming_day": room["day"], "second_counter": "count2", "cash-20000": "1", "cash-10000": "1"},
        follow=True,
    )
    assert "the count of table T1's drop box, 300.00 EUR, counted by you and count2" in text(sent)
    theirs = text(room["count2"].get(PAGE))
    assert "Drop box counted by count1 and count2 T1" in theirs and "300.00 EUR" in theirs
    assert "30000" not in theirs
    done = confirm(room["count2"], "drop_count")
    assert done.status_code == 302
    event = Event.objects.get(type="DropCounted")
    assert (event.data["counted_cents"], event.data["counters"]) == (30_000, ["count1", "count2"])
    # The verifier's page is blind: the state, never the counted figure.
    verifier = text(room["count3"].get(PAGE))
    assert "T1 Counted drop1 and drop2" in verifier and "shown after the recount" in verifier
    assert "300.00 EUR" not in verifier


def test_a_count_is_refused_on_the_page_before_removal_by_the_drop_team_or_with_a_bad_count(room):
    early = count(room)
    assert early.status_code == 409 and "has not been removed" in text(early)
    removed(room)
    by_drop = count(room, who="drop1")
    assert by_drop.status_code == 403 and "Not recorded: entering a drop count" in text(by_drop)
    not_counter = count(room, other="drop2")
    assert not_counter.status_code == 403 and "drop2" in text(not_counter)
    letters = count(room, cash={"20000": "two"})
    assert letters.status_code == 400 and "Cash count: pieces of 200.00 EUR are a whole number" in text(letters)
    assert 'aria-invalid="true"' in letters.content.decode()
    nobody = count(room, other="")
    assert nobody.status_code == 400 and "Counters: name the second counter" in text(nobody)
    assert not Approval.objects.filter(kind="drop_count").exists()
    assert not Event.objects.filter(type="DropCounted").exists()


def test_the_blind_recount_answers_only_agrees_and_a_counter_may_not_verify_his_own_count(room):
    removed(room)
    counted(room)
    own = recount(room, {"20000": "1", "10000": "1"}, who="count1")
    assert own.status_code == 403 and "the verifier is not one of its counters" in text(own)
    agreed = recount(room, {"20000": "1", "10000": "1"})
    assert "Your recount of table T1's drop box agrees with its count" in text(agreed)
    assert Event.objects.get(type="DropCountVerified").data["verifier"] == "count3"
    page = text(room["count3"].get(PAGE))
    assert "Agrees (count3)" in page and "300.00 EUR" in page  # shown once verified
    twice = recount(room, {"20000": "1"})
    assert twice.status_code == 409 and "already verified" in text(twice)


def test_a_differing_recount_is_shown_as_a_variance_and_the_count_stands(room):
    removed(room)
    counted(room)
    differs = recount(room, {"20000": "1"})
    assert "does not agree with its count: a variance is recorded for investigation; the count stands" in text(differs)
    assert "100.00" not in text(differs).split("Drop boxes")[0]  # the answer names no figure
    page = text(room["count1"].get(PAGE))
    assert "Variance of -100.00 EUR (count3)" in page
    assert Event.objects.get(type="DropCounted").data["counted_cents"] == 30_000


def test_the_master_game_report_is_signed_by_each_counter_from_his_own_login(room):
    nothing = room["count1"].post(reverse("workstations:count-room-sign"), {"gaming_day": room["day"]})
    assert nothing.status_code == 409 and "nothing to sign" in text(nothing)
    removed(room)
    counted(room)
    recount(room, {"20000": "1", "10000": "1"})
    for name in ("count1", "count2"):
        signed = room[name].post(reverse("workstations:count-room-sign"), {"gaming_day": room["day"]}, follow=True)
        assert f"You signed the master game report of gaming day {room['day']}." in text(signed)
    page = text(room["count3"].get(PAGE))
    assert "signed as it stands by count1, count2" in page and "Signed by the count team." in page
    twice = room["count1"].post(reverse("workstations:count-room-sign"), {"gaming_day": room["day"]})
    assert twice.status_code == 409 and "count1 has already signed this master game report" in text(twice)
    by_drop = room["drop1"].post(reverse("workstations:count-room-sign"), {"gaming_day": room["day"]})
    assert by_drop.status_code == 403 and "signing the master game report" in text(by_drop)
    assert Event.objects.filter(type="MasterGameReportSigned").count() == 2


def tips(room, who="count1", **extra):
    data = {
        "box": "table:T1",
        "gaming_day": room["day"],
        "counter_1": "count1",
        "counter_2": "count2",
        "manager": "pit2",
        "cash-2000": "6",
        "cash-1000": "3",
    } | extra
    return room[who].post(reverse("workstations:count-room-tips"), data)


def test_a_tip_box_is_entered_in_the_tips_book_once_the_other_counter_and_the_manager_confirm(room):
    sent = room["count1"].post(reverse("workstations:count-room-tips"), {}, follow=True)  # nothing typed
    assert sent.status_code == 400
    asked = tips(room)
    assert asked.status_code == 302
    approval = Approval.objects.get(kind="tips_count", state="pending")
    manager = text(room["pit2"].get(PAGE))
    assert "Tip box of table T1 counted by count1, count2, manager pit2" in manager and "150.00 EUR" in manager
    first = room["count2"].post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]), follow=True)
    assert "Signed. Still waiting for pit2." in text(first)
    last = room["pit2"].post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]), follow=True)
    assert "Signed: the tip box of table T1, 150.00 EUR, is entered in the tips book." in text(last)
    event = Event.objects.get(type="TipsCounted")
    assert (event.data["total_cents"], event.data["manager"]) == (15_000, "pit2")
    assert "Table T1 0.00 EUR 150.00 EUR 150.00 EUR count1, count2 pit2" in text(room["count1"].get(PAGE))


def test_a_cage_supervisor_witnesses_a_tips_count_and_signs_it_in_the_count_room(room):
    assert tips(room, manager="super2").status_code == 302
    approval = Approval.objects.get(kind="tips_count", state="pending")
    assert "manager super2" in text(room["super2"].get(PAGE))
    room["count2"].post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]))
    last = room["super2"].post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]), follow=True)
    assert "Signed: the tip box of table T1, 150.00 EUR, is entered in the tips book." in text(last)
    assert Event.objects.get(type="TipsCounted").data["manager"] == "super2"
    assert f'href="{PAGE}">Count room</a>' in room["super2"].get("/workstations/cage/").content.decode()
    assert f'href="{PAGE}">Count room</a>' not in room["cashier9"].get("/workstations/cage/").content.decode()
    # He witnesses; he counts no drop box.
    assert 'data-form="count"' not in room["super2"].get(PAGE).content.decode()


def test_a_tips_count_is_refused_on_the_page_without_a_manager_or_with_the_manager_counting(room):
    head = store.head()
    no_manager = tips(room, manager="")
    assert no_manager.status_code == 400 and "Manager: name the manager" in text(no_manager)
    counting = tips(room, who="pit2", counter_2="pit2")
    assert counting.status_code == 403 and "pit2 is a counter; the manager counts nothing" in text(counting)
    empty = tips(room, **{"cash-2000": "", "cash-1000": ""})
    assert empty.status_code == 400 and "an empty tip box is not entered in the tips book" in text(empty)
    outsider = tips(room, who="count3")
    assert outsider.status_code == 403 and "is a counter or the manager" in text(outsider)
    assert store.head() == head


def test_a_named_signer_may_refuse_and_neither_the_maker_nor_someone_not_named_may_sign(room):
    assert remove(room).status_code == 302
    approval = Approval.objects.get(kind="drop_box_remove", state="pending")
    own = room["drop1"].post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]))
    assert own.status_code == 403
    assert "Not recorded: drop1 asked for this act: the second signature must be another user" in text(own)
    stranger = room["count3"].post(reverse("workstations:count-room-decide", args=[approval.id, "confirm"]))
    assert stranger.status_code == 403 and "Not recorded" in text(stranger)
    refused = room["drop2"].post(
        reverse("workstations:count-room-decide", args=[approval.id, "refuse"]), {"reason": "not me"}, follow=True
    )
    assert "Refused: nothing is recorded" in text(refused)
    approval.refresh_from_db()
    assert approval.state == "rejected" and not Event.objects.filter(type="DropBoxRemoved").exists()


def test_a_malformed_gaming_day_is_a_400_on_the_page_showing_the_current_day(room):
    page = room["count1"].get(PAGE, {"day": "yesterday"})
    assert page.status_code == 400 and "Gaming day: A gaming day is a date YYYY-MM-DD" in text(page)


def test_a_removal_form_sent_twice_with_its_key_asks_once(room):
    form = {"table": "T1", "gaming_day": room["day"], "second_remover": "drop2", "idempotency_key": "count-room-k1"}
    first = room["drop1"].post(reverse("workstations:count-room-remove"), form, follow=True)
    again = room["drop1"].post(reverse("workstations:count-room-remove"), form, follow=True)
    assert "It is recorded when drop2 confirms" in text(first)
    assert "Already recorded: the form was sent more than once; it counts once." in text(again)
    assert Approval.objects.filter(kind="drop_box_remove").count() == 1
