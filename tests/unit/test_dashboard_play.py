"""The coup in play as the table view reads it (dashboard.play): one line per event, cards as
rank and suit symbol (``TS`` reads ``10♠``)."""

from dashboard.play import play_line


def fallback(event_type: str, data: dict) -> str:
    return f"[{event_type}]"


def line(event_type: str, **data) -> str | None:
    return play_line(event_type, data, fallback)


def test_black_jack_cards_decisions_and_the_dealer():
    assert line("CardDealt", card="AD", index=169, soft=True, total=17) == "card A♦ (total 17 soft)"
    assert line("PlayerDecided", box=3, bettor="P00003", action="double", stake_added_cents=2_500) == (
        "box 3 (P00003): double, adds 25.00 EUR"
    )
    assert line("HandClosed", box=1, hand_index=0, reason="stood", total=18) == "box 1 hand 1: stood at 18"
    assert line("HandClosed", box=1, hand_index=1, reason="bust", total=23) == "box 1 hand 2: bust at 23"
    assert line("DealerPlayed", cards=["6S", "AD"], total=17, blackjack=False, busted=False) == (
        "dealer 6♠ A♦: stands on 17"
    )
    assert line("DealerPlayed", cards=["TS", "6H", "9C"], total=25, blackjack=False, busted=True) == (
        "dealer 10♠ 6♥ 9♣: busts"
    )


def test_caribbean_stud_boxes_and_the_dealer_hand():
    assert line("CardDealt", box=None, card="9H", face="up") == "card 9♥ to dealer, face up"
    assert line("CardDealt", box=2, card="KH", face="down") == "card to box 2, face down"
    assert play_line("CardDealt", {"box": None, "card": "5H", "face": "down"}, fallback) == "card to dealer, face down"
    over = play_line("CardDealt", {"box": 2, "card": "KH", "face": "down"}, fallback, round_over=True)
    assert over == "card K♥ to box 2, face down"
    assert line("BoxDecided", box=1, patron="P00005", action="raise", raise_cents=2_000) == (
        "box 1 (P00005): raise 20.00 EUR"
    )
    assert line("BoxDecided", box=4, patron="P00008", action="fold", raise_cents=0) == "box 4 (P00008): fold"
    assert line("DealerRevealed", cards=["8S", "8H", "AC", "9S", "9H"], category="two pair", qualifies=True) == (
        "dealer reveals 8♠ 8♥ A♣ 9♠ 9♥: two pair"
    )
    assert line("DealerRevealed", cards=["2S"], category="high card", qualifies=False).endswith("does not qualify")


def test_a_caribbean_card_burnt_by_mistake_reads_with_whose_it_was_and_that_it_is_replaced():
    from_hand = {"shoe": "s", "card": "7H", "box": 2, "from": "hand", "place": 3, "reason": "exposed by mistake"}
    assert line("CardBurnt", **from_hand) == "card burnt: 7♥ from box 2 (exposed by mistake), replaced"
    off_deck = {"card": "TD", "box": None, "from": "deck", "index": 1, "reason": "exposed by mistake"}
    assert line("CardBurnt", **off_deck) == "card burnt: 10♦ off the deck for dealer (exposed by mistake), replaced"
    assert line("CardBurnt", card="QS", box=None, **{"from": "hand"}) == "card burnt: Q♠ from dealer, replaced"


def test_baccarat_and_trente_et_quarante_results():
    baccarat = {
        "player_cards": ["9D", "QS"],
        "banker_cards": ["8C", "4H"],
        "player_total": 9,
        "banker_total": 2,
        "winner": "player",
        "natural": True,
    }
    assert line("CoupResult", **baccarat) == "player 9♦ Q♠ = 9, banker 8♣ 4♥ = 2, natural: player wins"
    tq = {
        "noir_points": 33,
        "rouge_points": 35,
        "result": "noir",
        "couleur_inverse": "inverse",
        "first_card_colour": "rouge",
    }
    assert line("CoupResult", **tq) == "noir 33, rouge 35: noir wins, inverse (first card rouge)"


def test_settlement_duplicates_are_hidden_and_unknown_events_fall_back():
    assert line("BetResolved", patron="P00001") is None
    assert line("StudActed", seat=2) == "[StudActed]"
    assert line("CoupResult", something="else") == "[CoupResult]"  # neither game's shape
    assert line("HandClosed") == "box None hand 1: ? at None"  # odd data still reads, never raises
