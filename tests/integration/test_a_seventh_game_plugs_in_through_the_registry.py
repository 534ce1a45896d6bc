"""A seventh game, declared in a test package (``tests.toygame``: high card against the house,
even money, ties to the house) and registered in ``games.catalog`` for the test only, is
played end to end through the house's own services: the table opens with it (its column's
choices come from the registry), bets go down through the batch intake, the coup is dealt and
its cards reported through the dealing entry points, and the ledger carries every posting.
Nothing outside the registry and the test package names the game. Cents throughout."""

from decimal import Decimal

import pytest

from games.catalog import GAMES, register, spec
from games.models import Bet, Round, Shoe, Table
from games.services.bet_batches import bet_batch_place
from games.services.dealing import deal, report_card
from games.services.rounds import round_close_bets, round_open, round_void
from games.services.tables import table_open
from games.theory import house_edge
from ledger import accounts, store
from ledger.models import Event
from staff.roles import Role
from tests.conftest import ACTOR, make_patron, staff_user
from tests.toygame import services  # noqa: F401 - provides high card's services to its spec
from tests.toygame.spec import SPEC

OPENER = 1_000_000  # 10,000.00 in the tray


@pytest.fixture
def high_card(settings):
    """High card registered for this test, with the house's approved range of its limits."""
    settings.CASINO_TABLE_LIMITS_CENTS = {**settings.CASINO_TABLE_LIMITS_CENTS, SPEC.code: (100, 500_000)}
    register(SPEC)
    yield SPEC
    del GAMES[SPEC.code]


def _open_coup_with_two_bets(card_source: str) -> tuple[str, str, str]:
    """Table H1 open at high card, one coup with 10.00 on the player (A) and 5.00 on the house
    (B), placed through the batch intake. Returns ``(round, A, B)``."""
    opened = table_open(
        code="H1", game="high_card", opener_cents=OPENER, actor=ACTOR, rules={"card_source": card_source}
    )
    assert opened["rules"] == {"min_bet_cents": 500, "max_bet_cents": 100_000, "card_source": card_source}
    a, b = make_patron(100_000), make_patron(100_000)
    coup = round_open(table="H1", actor=ACTOR)["round"]
    placed = bet_batch_place(
        round_id=coup,
        bets=[
            {"key": "a1", "patron": a, "bet": "player", "stake_cents": 1_000},
            {"key": "b1", "patron": b, "bet": "house", "stake_cents": 500},
        ],
        actor=ACTOR,
    )
    assert (placed["accepted"], placed["refused"]) == (2, 0)
    return coup, a, b


def _chips(patron: str) -> int:
    return store.balance(accounts.patron_chips(patron))


@pytest.mark.django_db
def test_a_coup_of_a_registered_toy_game_is_dealt_settled_and_posted(cage, high_card):
    assert ("high_card", "High card") in Table._meta.get_field("game").choices
    coup, a, b = _open_coup_with_two_bets("reader")
    game = Table._meta.get_field("game")
    assert game.clean("high_card", Table.objects.get(code="H1")) == "high_card"  # one of the choices
    assert (_chips(a), _chips(b)) == (99_000, 99_500)
    assert store.balance(accounts.table_layout("H1")) == 1_500

    round_close_bets(round_id=coup, actor=ACTOR)
    started = deal(round_id=coup, actor=ACTOR)  # the reader deck: the terminal reports the cards
    assert (started["state"], started["cards"]) == ("dealing", [])
    report_card(round_id=coup, card="KS", actor=ACTOR)  # the player's
    settled = report_card(round_id=coup, card="7H", actor=ACTOR)  # the house's: king beats seven

    assert settled["state"] == "settled"
    assert settled["result"] == {"player": "KS", "house": "7H"}
    # A wins 10.00 even money on the player; B loses his 5.00 on the house.
    assert (_chips(a), _chips(b)) == (101_000, 99_500)
    assert store.balance(accounts.table_layout("H1")) == 0
    assert store.balance(accounts.table_tray("H1")) == OPENER - 1_000 + 500
    lines = {
        e.data["patron"]: (e.data["outcome"], e.data["return_cents"], e.data["winnings_cents"], e.data["house_edge"])
        for e in Event.objects.filter(stream=f"round/{coup}", type="BetSettled")
    }
    assert lines == {a: ("won", 2_000, 1_000, "1/17"), b: ("lost", 0, 0, "1/17")}
    totals = Event.objects.get(stream=f"round/{coup}", type="RoundSettled").data
    assert (totals["staked_cents"], totals["returned_cents"], totals["house_win_cents"]) == (1_500, 2_000, -500)
    assert totals["winner"] == "player"
    assert sorted(Bet.objects.filter(round_id=coup).values_list("state", "return_cents")) == [
        ("lost", 0),
        ("won", 2_000),
    ]
    assert Shoe.objects.get(table__code="H1").state == Shoe.State.CLOSED  # the coup's deck, spent
    # Its edge too is the game's own, asked through the registry.
    assert house_edge("high_card", {})[0] == Decimal(3) / Decimal(51)
    assert spec("high_card").name == "High card"


@pytest.mark.django_db
def test_a_toy_game_coup_voided_mid_deal_gives_every_stake_back_and_closes_its_deck(cage, high_card):
    coup, a, b = _open_coup_with_two_bets("reader")
    round_close_bets(round_id=coup, actor=ACTOR)
    deal(round_id=coup, actor=ACTOR)
    report_card(round_id=coup, card="QD", actor=ACTOR)

    signer = staff_user("pit2", Role.PIT_BOSS).username  # a card is out: a second pit boss signs
    voided = round_void(round_id=coup, reason="card exposed", actor=ACTOR, approver=signer)

    assert (voided["state"], voided["bets_returned"]) == ("voided", 2)
    assert (_chips(a), _chips(b)) == (100_000, 100_000)
    assert store.balance(accounts.table_layout("H1")) == 0
    assert store.balance(accounts.table_tray("H1")) == OPENER
    deck = Shoe.objects.get(table__code="H1")
    assert deck.state == Shoe.State.CLOSED  # the game's after_void: its deck revealed, not reused
    closed = Event.objects.get(stream=deck.stream, type="ShoeClosed").data
    assert (closed["reason"], closed["round"]) == ("coup voided", coup)


@pytest.mark.django_db
def test_a_shuffled_toy_game_coup_settles_by_the_cards_its_deck_dealt(cage, high_card):
    coup, a, b = _open_coup_with_two_bets("shuffled")
    round_close_bets(round_id=coup, actor=ACTOR)

    settled = deal(round_id=coup, actor=ACTOR)

    player, house = settled["cards"]
    ranks = "23456789TJQKA"
    deck = Shoe.objects.get(table__code="H1")
    assert [player, house] == deck.order[:2]  # the committed order's first two cards
    assert Round.objects.get(pk=coup).state == Round.State.SETTLED
    a_won = ranks.index(player[0]) > ranks.index(house[0])
    b_won = ranks.index(house[0]) > ranks.index(player[0])
    assert _chips(a) == 99_000 + (2_000 if a_won else 0)
    assert _chips(b) == 99_500 + (1_000 if b_won else 0)
    assert store.balance(accounts.table_tray("H1")) == OPENER + 1_500 - 2_000 * a_won - 1_000 * b_won
    assert store.balance(accounts.table_layout("H1")) == 0
