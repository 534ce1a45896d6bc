"""Black jack with a shuffled shoe: commitments, the cut card, the ledger (RULES.md §Black jack)."""

import random

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from demo.blackjack import play_blackjack_session
from games.models import Shoe
from games.services.shoes import verify_shoe
from ledger.models import Event
from ledger.replay import replay_check
from ledger.verify import verify_chain

pytestmark = pytest.mark.django_db


def test_a_basic_strategy_session_balances_and_every_shoe_verifies(cage, capsys):
    report = play_blackjack_session(coups=40, rng=random.Random(11))
    assert report.coups == 40 and report.hands >= 40
    assert report.table_win_cents == report.settlements["house_win"]
    assert report.shoe_faults == [] and report.shoes_verified >= 1
    assert Shoe.objects.filter(state=Shoe.State.CLOSED).count() == report.shoes_verified
    assert replay_check() == [] and verify_chain().ok
    call_command("shoe", "verify")
    assert "every revealed order matches its commitment" in capsys.readouterr().out
    # each shoe's cut card came out before the shoe was changed, except the last one
    shoes = list(Shoe.objects.order_by("id"))
    exhausted = Event.objects.filter(type="ShoeExhausted").count()
    assert exhausted >= len(shoes) - 1


def test_every_card_dealt_is_the_next_card_of_the_committed_order(cage):
    play_blackjack_session(coups=5, rng=random.Random(5))
    shoe = Shoe.objects.get()
    revealed = Event.objects.get(type="ShoeClosed").data
    dealt = [(e.data["index"], e.data["card"]) for e in Event.objects.filter(type="CardDealt").order_by("position")]
    assert [i for i, _ in dealt] == list(range(5, 5 + len(dealt)))  # after the 5 burned cards, in order
    assert all(revealed["order"][i] == card for i, card in dealt)
    assert verify_shoe(str(shoe.id)) == []


def test_a_forged_reveal_is_found(cage):
    play_blackjack_session(coups=3, rng=random.Random(9))
    shoe = Shoe.objects.get()
    closed = Event.objects.get(type="ShoeClosed")
    order = closed.data["order"]
    # Swap two different cards (a six-deck shoe often has the same card twice in a row).
    i = next(i for i in range(10, len(order) - 1) if order[i] != order[i + 1])
    order[i], order[i + 1] = order[i + 1], order[i]
    with transaction.atomic():
        with connection.cursor() as cursor:
            if connection.vendor == "postgresql":
                cursor.execute("SET LOCAL session_replication_role = replica")
            else:
                cursor.execute("DROP TRIGGER ledger_event_no_update")
        Event.objects.filter(pk=closed.pk).update(data={**closed.data, "order": order})
        faults = verify_shoe(str(shoe.id))
        assert any("does not match the commitment" in f for f in faults)
        with pytest.raises(CommandError):
            call_command("shoe", "verify")
        transaction.set_rollback(True)
