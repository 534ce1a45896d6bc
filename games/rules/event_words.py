"""Every ledger event in words: the one wording of the audit trail (``ledger.projections.audit.
summary``, the API), the pit boss's coup audit page and the table page's play feed (``dashboard``).

Standard library only (the rules' layer): pure functions over an event's type and data. Amounts
go through the one money formatter (``basis.money.format_cents``), never as cent counts;
cards read as rank and suit symbol (``TS`` → ``10♠``); code values in words.

Game protection: a card dealt face down (``face`` ``"down"``, or a classic stud ``"hole"``
card) reads without its value (``card to dealer, face down``) unless the caller says its coup
is over (``round_over``: settled or voided), when auditors see it in full. The default hides.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from basis.face_down import is_face_down
from basis.money import format_cents

from .bet_words import ANNOUNCE_WORDS, announce_words, bet_spot, chips_words
from .roulette import RED

SUITS = {"H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black"), "S": ("♠", "black")}

# Faces of a ``CardDealt`` whose value stays hidden while the coup is in play.
FACE_WORDS = {"down": "face down", "up": "face up", "hole": "hole card, face down"}

# Game codes of ``TableOpened`` (``games.catalog``) in words.
GAMES = {
    "english_roulette": "English roulette",
    "blackjack": "black jack",
    "baccarat": "punto banco",
    "caribbean_stud": "Caribbean stud poker",
    "classic_stud": "classic stud poker",
    "trente_quarante": "trente-et-quarante",
}


def eur(cents: int) -> str:
    """The amount with the casino's currency (``format_cents``; TypeError for anything but an int)."""
    return format_cents(cents)


def roulette_colour(number: int) -> str:
    """A pocket's colour in words: ``green`` for 0, ``red`` for the rules' red numbers, else ``black``."""
    if number == 0:
        return "green"
    return "red" if number in RED else "black"


def card_face(code: object) -> tuple[str, str, str] | None:
    """``"TH"`` → ``("10", "♥", "red")``; ``None`` for anything not a card code."""
    if not isinstance(code, str) or len(code) != 2 or code[1] not in SUITS:
        return None
    rank = "10" if code[0] == "T" else code[0]
    symbol, colour = SUITS[code[1]]
    return rank, symbol, colour


def card_text(code: object) -> str:
    """``"TH"`` → ``"10♥"``; anything else as it is."""
    face = card_face(code)
    return f"{face[0]}{face[1]}" if face else str(code)


def cards_text(codes) -> str:
    return " ".join(card_text(c) for c in codes or [])


def game_words(code: object) -> str:
    """A game code in words (``english_roulette`` → ``English roulette``); an unknown one as it is."""
    return GAMES.get(code, str(code).replace("_", " ")) if isinstance(code, str) else str(code)


# --- cards and decisions of a coup (the play feed's lines) ---


def _whom(d: dict) -> str:
    target = d.get("to") if isinstance(d.get("to"), dict) else d  # black jack names a target
    if target.get("kind") == "dealer":
        return "dealer"
    if target.get("seat") is not None:  # classic stud
        return f"seat {target['seat']}" + (f" ({target['patron']})" if target.get("patron") else "")
    if target.get("box") is not None:
        return f"box {target['box']}"
    return "dealer" if "box" in target else ""


def _card(d: dict, *, shown: bool = True) -> str:
    where = _whom(d)
    face = d.get("face")
    face = f", {FACE_WORDS.get(face, f'face {face}')}" if face else ""
    total = f" (total {d['total']}{' soft' if d.get('soft') else ''})" if isinstance(d.get("total"), int) else ""
    card = f" {card_text(d.get('card', '?'))}" if shown else ""
    return f"card{card}" + (f" to {where}" if where else "") + face + (total if shown else "")


def _card_burnt(d: dict) -> str:
    """A Caribbean card exposed by mistake (sheet 001): burnt, and the next card of the deck
    takes its place, as ``card burnt: 9♦ from box 1 (exposed by mistake), replaced``."""
    whose = "dealer" if d.get("box") is None else f"box {d['box']}"
    where = f"off the deck for {whose}" if d.get("from") == "deck" else f"from {whose}"
    reason = f" ({d['reason']})" if d.get("reason") else ""
    return f"card burnt: {card_text(d['card'])} {where}{reason}, replaced"


def target_words(to: dict) -> str:
    """Where a card goes (a black jack ``DrawTarget``): ``dealer``, ``player's box 2, hand 1``
    (the engine counts a box's hands from 0, people from 1), ``seat 3``; ``?`` for none."""
    if not isinstance(to, dict):
        return "?"
    if to.get("kind") == "dealer":
        return "dealer"
    if to.get("seat") is not None:
        return f"seat {to['seat']}"
    if to.get("box") is not None:
        index = to.get("hand_index")
        hand = f", hand {index + 1}" if type(index) is int else ""
        return f"player's box {to['box']}{hand}"
    return "dealer" if "box" in to else "?"


# Staff roles (``staff.roles.Role``) as the floor says them.
ROLE_WORDS = {
    "dealer": "dealer",
    "pit_boss": "pit boss",
    "cashier": "cashier",
    "cage_supervisor": "cage supervisor",
    "count_team": "count team",
    "runner": "runner",
    "drop_team": "drop team",
    "auditor": "auditor",
    "compliance": "compliance officer",
    "admin": "administrator",
}
# Why a black jack hand takes no more cards (``blackjack.HandClosed.reason``).
HAND_RESULTS = {
    "stood": "stood",
    "busted": "busted",
    "twenty_one": "twenty-one",
    "doubled": "doubled (one card)",
    "split_ace": "split ace (one card)",
    "blackjack": "black jack",
    "immediate": "closed at once",
}


def _hand_result(reason: object) -> str:
    return HAND_RESULTS.get(reason, str(reason).replace("_", " ")) if reason is not None else "?"


def roles_words(roles: object) -> str:
    """A list of role codes in words: ``["pit_boss", "dealer"]`` → ``pit boss, dealer``; none → ``none``."""
    if isinstance(roles, str):
        roles = [roles]
    if not isinstance(roles, list) or not roles:
        return "none"
    return ", ".join(ROLE_WORDS.get(r, str(r).replace("_", " ")) for r in roles)


def _roles_changed(d: dict) -> str:
    """``roles of demo-pitboss: pit boss (were: none)``."""
    return f"roles of {d['user']}: {roles_words(d.get('after'))} (were: {roles_words(d.get('before'))})"


def _hand(d: dict) -> str:
    """``box 2 hand 1``: people count a box's hands from 1 (the engine's ``hand_index`` from 0;
    none given: the box's first hand)."""
    index = d.get("hand_index")
    number = index + 1 if isinstance(index, int) and not isinstance(index, bool) else 1
    return f"box {d.get('box')} hand {number}"


def _decision(d: dict) -> str:
    added = d.get("stake_added_cents")
    extra = f", adds {eur(added)}" if isinstance(added, int) and added else ""
    action = str(d.get("action", "?")).replace("_", " ")
    return f"box {d.get('box')} ({d.get('bettor', d.get('patron', '?'))}): {action}{extra}"


def _insurance_decided(d: dict) -> str:
    """``box 1 (P00030): insures for 5.00 EUR`` or ``…: declines insurance``."""
    amount = d.get("amount_cents")
    said = f"insures for {eur(amount)}" if isinstance(amount, int) and amount else "declines insurance"
    return f"box {d.get('box')} ({d.get('bettor', '?')}): {said}"


def _even_money_decided(d: dict) -> str:
    """``box 1 (P00030): takes even money`` or ``…: declines even money``."""
    said = "takes even money" if d.get("accepted") else "declines even money"
    return f"box {d.get('box')} ({d.get('bettor', '?')}): {said}"


def _box_decided(d: dict) -> str:
    raised = d.get("raise_cents")
    extra = f" {eur(raised)}" if isinstance(raised, int) and raised else ""
    action = str(d.get("action", "?")).replace("_", " ")
    return f"box {d.get('box')} ({d.get('patron', '?')}): {action}{extra}"


def _dealer_played(d: dict) -> str:
    cards = cards_text(d.get("cards"))
    verdict = "black jack" if d.get("blackjack") else ("busts" if d.get("busted") else f"stands on {d.get('total')}")
    return f"dealer {cards}: {verdict}".replace("  ", " ")


def _row(cards, points) -> str:
    """A trente-et-quarante row: ``6♠ K♥ 10♦ 4♣ = 30``, or the points alone when its cards are not given."""
    shown = cards_text(cards)
    return f"{shown} = {points}" if shown else str(points)


def _coup_result(d: dict) -> str:
    if "winner" in d:  # punto banco
        natural = ", natural" if d.get("natural") else ""
        return (
            f"player {cards_text(d.get('player_cards'))} = {d.get('player_total')}, "
            f"banker {cards_text(d.get('banker_cards'))} = {d.get('banker_total')}{natural}: {d['winner']} wins"
        )
    if "noir_points" in d:  # trente-et-quarante
        call = (d.get("announcement") or {}).get("text") if isinstance(d.get("announcement"), dict) else None
        said = f'; the dealer calls "{call}"' if call else ""
        return (
            f"noir {_row(d.get('noir_row'), d['noir_points'])}, "
            f"rouge {_row(d.get('rouge_row'), d.get('rouge_points'))}: "
            + (
                f"{d.get('result')} wins, {d['couleur_inverse']} (first card {d.get('first_card_colour', '?')})"
                if d.get("couleur_inverse")
                else {"apres": "après, the bets go to prison", "refait": "refait, the coup is void"}.get(
                    d.get("result"), str(d.get("result"))
                )
            )
            + said
        )
    return ""


def _bet_resolved(d: dict) -> str:
    state = {"won": "won", "lost": "lost", "pushed": "pushed", "returned": "returned (void coup)"}
    return (
        f"{d['patron']}'s bet of {eur(d['staked_cents'])} {state.get(d['state'], d['state'])},"
        f" returns {eur(d['return_cents'])}"
    )


def _shoe_shuffled(d: dict) -> str:
    decks = d.get("decks")
    size = f"{decks} deck{'s' if decks != 1 else ''}" if isinstance(decks, int) else "a shoe"
    how = " (read from the cards)" if d.get("mode") not in (None, "shuffled") else ""
    cut = f", cut at card {d['cut_position']}" if isinstance(d.get("cut_position"), int) else ""
    table = f" for {d['table']}" if d.get("table") else ""
    return f"shoe of {size} shuffled{table}{how}{cut}, order sealed"


def _drop_counted(d: dict) -> str:
    variance = d.get("variance_cents")
    off = f", variance {eur(variance)}" if isinstance(variance, int) and variance else ", no variance"
    return (
        f"drop box of {d['table']} counted: {eur(d['counted_cents'])} against {eur(d['expected_cents'])} expected{off}"
    )


def _slip(verb: str) -> Callable[[dict], str]:
    """A fill or credit slip's step: ``fill 2026-000001 for R1 issued by demo-cashier``."""

    def words(d: dict) -> str:
        amount = f" of {eur(d['amount_cents'])}" if isinstance(d.get("amount_cents"), int) else ""
        who = {
            "requested": d.get("requested_by"),
            "issued": d.get("issued_by"),
            "delivered": d.get("accepted_by"),
        }.get(verb)
        by = f" by {who}" if who else ""
        runner = f", runner {d['runner']}" if verb == "issued" and d.get("runner") else ""
        return f"{d['kind']} {d['slip']}{amount} for {d['table']} {verb}{by}{runner}"

    return words


def _announced(d: dict) -> str:
    """``, part of the announced finale en plein 0`` for a component of an announced bet."""
    if not d.get("announce"):
        return ""
    return f", part of the announced {announce_words(d['announce'], d.get('announce_number'))}"


def _pot_name(number: object) -> str:
    """A stud pot as a table names it: ``0`` → "the main pot", ``1`` → "side pot 1" (the events
    number the pots from 0, the main pot first)."""
    return "the main pot" if not number else f"side pot {number}"


def _rake_taken(d: dict) -> str:
    return f"rake of {eur(d['rake_cents'])} taken from {_pot_name(d.get('pot'))} of {eur(d['pot_cents'])}"


def _pot_awarded(d: dict) -> str:
    winners = d.get("winners") or []
    to = ("seat " if len(winners) == 1 else "seats ") + ", ".join(str(w) for w in winners) if winners else "nobody"
    rake = f", rake {eur(d['rake_cents'])}" if type(d.get("rake_cents")) is int else ""
    return f"{_pot_name(d.get('pot'))} of {eur(d['amount_cents'])} to {to}{rake}"


def _hands_shown(d: dict) -> str:
    hands = [
        f"seat {h['seat']} ({h['player']}) {cards_text(h['cards'])}: {h['category']}"
        for h in d["hands"]
        if isinstance(h, dict)
    ]
    return "hands shown: " + "; ".join(hands) if hands else ""


def _credit_line(d: dict) -> str:
    before = d.get("before")
    was = f" (was {eur(before)})" if type(before) is int else ""
    return f"credit line of {d['patron']} approved: {eur(d['limit_cents'])}{was}"


# --- AML decisions (patrons.services.aml) ---

AML_CHANNELS = {
    "cage_purchase": "chips bought at the cage",
    "table_buy_in": "cash buy-in at a table",
    "front_money_deposit": "front money deposited in cash at the cage",
    "marker_payment": "marker paid in cash at the cage",
    "marker_payment_at_table": "marker paid in cash at a table",
    "cage_redemption": "chips redeemed at the cage",
    "front_money_withdrawal": "front money withdrawn in cash at the cage",
    "foreign_exchange": "foreign banknotes exchanged at the cage",
}
AML_LABELS = {
    "AmlIdentityChecked": "identity checked",
    "AmlTransactionLogged": "transaction logged",
    "AmlAggregateFlagged": "total flagged for a report",
    "AmlTransactionRefused": "transaction refused",
}


def aml_line(event_type: str, data: dict) -> str | None:
    """One line for an AML decision: what, which way, how much against which threshold; the
    total is the one the decision was taken on (its ``basis``): the visit's under ``visit``
    (``visit_total_cents``), else the gaming day's. ``None`` when its amounts are missing."""
    amounts = [data.get(k) for k in ("amount_cents", "day_total_cents", "threshold_cents")]
    if not all(type(a) is int for a in amounts):
        return None
    amount, total, threshold = amounts
    span = "day"
    if data.get("basis") == "visit" and type(data.get("visit_total_cents")) is int:
        span, total = "visit", data["visit_total_cents"]
    what = AML_LABELS.get(event_type, event_words(event_type))
    channel = data.get("channel", "?")
    how = f"cash buy-in at table {data['table']}" if channel == "table_buy_in" and data.get("table") else None
    line = (
        f"{what}: cash {data.get('direction', '?')} {eur(amount)} "
        f"({how or AML_CHANNELS.get(channel, channel)}), "
        f"{span}'s total {eur(total)}, threshold {eur(threshold)}"
    )
    return f"{line}: {data['reason']}" if data.get("reason") else line


# The coup's own lines, as the table page's play feed tells a coup.
LINES: dict[str, Callable[[dict], str]] = {
    "DealingStarted": lambda d: "dealing",
    "CardDealt": _card,
    "CardsBurned": lambda d: f"{d.get('count', 0)} card(s) burned",
    "CardBurnt": _card_burnt,
    "PlayerDecided": _decision,
    "InsuranceDecided": _insurance_decided,
    "EvenMoneyDecided": _even_money_decided,
    "HandClosed": lambda d: f"{_hand(d)}: {_hand_result(d.get('reason'))} at {d.get('total')}",
    "DealerPlayed": _dealer_played,
    "DealerShows": lambda d: f"dealer shows {card_text(d.get('card', '?'))}",
    "BoxDecided": _box_decided,
    "DealerRevealed": lambda d: (
        f"dealer reveals {cards_text(d.get('cards'))}: {d.get('category', '?')}"
        + ("" if d.get("qualifies") else ", does not qualify")
    ),
    "CoupResult": _coup_result,
    "ResultRecorded": lambda d: (
        f"the ball lands on {d['number']} {roulette_colour(d['number'])}" if type(d.get("number")) is int else ""
    ),
    "BetImprisoned": lambda d: (
        f"{d.get('patron', '?')}'s {eur(d['stake_cents'])} goes to prison (level {d.get('level', 1)})"
    ),
}

# Everything else the audit trail names.
SUMMARIES: dict[str, Callable[[dict], str]] = {
    "StaffRolesChanged": _roles_changed,
    "PatronRegistered": lambda d: f"patron {d['patron']} registered ({d['kind']})",
    "CageOpened": lambda d: f"cage opened: cash {eur(d['counted_cash_cents'])}, chips {eur(d['counted_chips_cents'])}",
    "ChipsPurchased": lambda d: f"{d['patron']} bought {eur(d['amount_cents'])} of chips at the cage",
    "ChipsRedeemed": lambda d: f"{d['patron']} redeemed {eur(d['amount_cents'])} of chips at the cage",
    "ExchangeRateSet": lambda d: (
        f"buying rate of {d.get('currency', '?')} set at {d.get('rate', '?')} {d.get('house_currency', '')}".rstrip()
        + f" for 1 {d.get('currency', '?')}"
    ),
    "ForeignCurrencyExchanged": lambda d: (
        f"{d['patron']} exchanged {format_cents(d['foreign_cents'], d['currency'])} at {d['rate']} for "
        f"{eur(d['amount_cents'])} in {d.get('paid_in', 'chips')} at window {d.get('window', '?')}"
    ),
    "ForeignExchangeReversed": lambda d: (
        f"exchange of {format_cents(d['foreign_cents'], d['currency'])} by {d['patron']} reversed, the banknotes "
        f"given back for {eur(d['amount_cents'])} ({d.get('reason', '')}), approved by {d.get('approved_by', '?')}"
    ),
    "ChipsPurchaseReversed": lambda d: (
        f"sale of {eur(d['amount_cents'])} of chips to {d['patron']} reversed ({d.get('reason', '')}), "
        f"approved by {d.get('approved_by', '?')}"
    ),
    "ChipsRedemptionReversed": lambda d: (
        f"redemption of {eur(d['amount_cents'])} of chips by {d['patron']} reversed ({d.get('reason', '')}), "
        f"approved by {d.get('approved_by', '?')}"
    ),
    "CageWindowReplenished": lambda d: (
        f"window {d.get('window', '?')} topped up from the main bank: cash {eur(d['cash_cents'])}, "
        f"chips {eur(d['chips_cents'])}, signed by {d.get('approved_by', '?')}"
    ),
    "CageWindowReturned": lambda d: (
        f"window {d.get('window', '?')} returned to the main bank: cash {eur(d['cash_cents'])}, "
        f"chips {eur(d['chips_cents'])}, signed by {d.get('approved_by', '?')}"
    ),
    "TableOpened": lambda d: f"table {d['table']} opened ({game_words(d['game'])}), opener {eur(d['opener_cents'])}",
    "TableClosed": lambda d: f"table {d['table']} closed, closer {eur(d['closer_cents'])}",
    # The dealers' assignments (staff.services): the times are in the event's envelope.
    "DealerAssigned": lambda d: (
        f"dealer {d['dealer']} assigned to {d['table']}" + (f", moved from {d['before']}" if d.get("before") else "")
    ),
    "DealerReleased": lambda d: f"dealer {d['dealer']} released from {d['table']}",
    "CashBuyIn": lambda d: f"{d['patron']} bought in for {eur(d['amount_cents'])} cash at {d['table']}",
    "ColourChipsBought": lambda d: (
        f"{d['patron']} bought {d['chips']} {d['colour']} chips of {eur(d['unit_value_cents'])} at {d['table']}"
    ),
    "ColourChipsChangedBack": lambda d: (
        f"{d['patron']} changed {eur(d['amount_cents'])} of {d['colour']} chips back (change inverse)"
    ),
    "FluctuationInvestigationOpened": lambda d: (
        f"investigation opened of {d.get('subject', '')} {d.get(d.get('subject', ''), '')}, gaming day "
        f"{d.get('gaming_day', '')}: {d.get('reason', '')}"
    ),
    "FluctuationInvestigationNoted": lambda d: f"investigation noted: {d.get('note', '')}",
    "FluctuationInvestigationClosed": lambda d: f"investigation closed: {d.get('finding', '')}",
    "RoundOpened": lambda d: f"coup {d['number']} of {d['table']} open for bets",
    "BettingClosed": lambda d: "rien ne va plus",
    "ResultRecorded": lambda d: f"result: {d.get('number', d)}",
    "BetPlaced": lambda d: (
        f"{d['patron']} bets {eur(d['stake_cents'])} on {bet_spot(d.get('position') or {})}"
        f" ({chips_words(d['chips'])})" + _announced(d)
    ),
    "BetSettled": lambda d: (
        f"{d['patron']}'s {eur(d['stake_cents'])} on {bet_spot(d.get('position') or {})}: {d['outcome']},"
        f" returns {eur(d['return_cents'])}"
    ),
    "BetResolved": _bet_resolved,
    "BetReturned": lambda d: f"{d['patron']}'s {eur(d['stake_cents'])} returned (void coup)",
    "RoundSettled": lambda d: (
        f"coup settled: staked {eur(d['staked_cents'])}, returned {eur(d['returned_cents'])},"
        f" house {eur(d['house_win_cents'])}"
    ),
    "RoundReversed": lambda d: (
        f"coup {d['number']} of {d['table']} reversed: {d['reason']}"
        + (f", signed by {d['approved_by']}" if d.get("approved_by") else "")
    ),
    "RoundVoided": lambda d: (
        f"coup void: {d['reason']}" + (f", signed by {d['approved_by']}" if d.get("approved_by") else "")
    ),
    "ShoeShuffled": _shoe_shuffled,
    "DropCounted": _drop_counted,
    "FillRequested": _slip("requested"),
    "FillIssued": _slip("issued"),
    "FillDelivered": _slip("delivered"),
    "CreditRequested": _slip("requested"),
    "CreditIssued": _slip("issued"),
    "CreditDelivered": _slip("delivered"),
    "RakeTaken": _rake_taken,
    "PotAwarded": _pot_awarded,
    "HandsShown": _hands_shown,
    "CreditLineApproved": _credit_line,
    "CompGiven": lambda d: f"comp ({d['kind']}) of {eur(d['amount_cents'])} given to {d['patron']}",
    "CompReversed": lambda d: f"comp of {eur(d['amount_cents'])} to {d['patron']} reversed: {d.get('reason', '')}",
    "MarkerPaidAtTable": lambda d: (
        f"marker {d['serial']} of {d['patron']}: {eur(d['amount_cents'])} paid in {d['method']} at {d['table']}"
    ),
    "MarkerVoided": lambda d: (
        f"marker {d['serial']} of {d['patron']} ({eur(d['amount_cents'])}) voided: {d['reason']};"
        f" asked by {d['voided_by']}, signed by {d['approved_by']}"
    ),
    "FrontMoneyDrawn": lambda d: (
        f"{d['patron']} drew {eur(d['amount_cents'])} of front money in chips at {d['table']}"
        f" ({eur(d['balance_cents'])} left)"
    ),
    # Second signatures (approvals/): who asked, who signed, what became of it.
    "ApprovalRequested": lambda d: (
        f"{d['maker']} asked for {d['kind']}, waiting for "
        + ", ".join(w["user"] or " or ".join(w["roles"]) for w in d["waiting_for"])
    ),
    "ApprovalSigned": lambda d: f"{d['by']} signed {d['kind']}",
    "ApprovalConfirmed": lambda d: f"{d['by']} signed {d['kind']}: it ran",
    "ApprovalRejected": lambda d: f"{d['by']} rejected {d['kind']}" + (f": {d['reason']}" if d.get("reason") else ""),
    "ApprovalWithdrawn": lambda d: (
        f"{d['kind']} withdrawn by {d['by']}" + (f": {d['reason']}" if d.get("reason") else "")
    ),
    "ApprovalExpired": lambda d: f"{d['kind']} expired unsigned",
    # Outage mode: the paper fallback and its later entries (cashier.services.outage).
    "OutageDeclared": lambda d: (
        f"outage {d['outage']} declared ({d['scope']}): {d['reason']}; paper forms "
        + ", ".join(f["form"] for f in d["forms"])
    ),
    "OutageEnded": lambda d: f"outage {d['outage']} ended",
    "PaperLineEntered": lambda d: (
        f"line {d['line']} of paper form {d['form']} entered by {d['entered_by']}, approved by {d['approved_by']}"
    ),
    "PaperFormEntered": lambda d: f"paper form {d['form']} entered: {d['lines']} line(s)",
}

# Acronyms an event type spells as a word (``AmlTransactionLogged``): read in capitals.
ACRONYMS = {"aml": "AML"}


def event_words(event_type: str) -> str:
    """An event type in words: ``"BetSettled"`` → ``"bet settled"``, ``"AmlTransactionLogged"``
    → ``"AML transaction logged"``."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", str(event_type)).lower().split(" ")
    return " ".join(ACRONYMS.get(word, word) for word in words)


# Code values of event data in words, by data key: the AML channel of a cash transaction
# (``patrons.visits.CASH_EVENTS``), its direction, and the basis of the AML totals.
CODE_WORDS: dict[str, dict[str, str]] = {
    "channel": AML_CHANNELS,
    "direction": {"in": "cash in", "out": "cash out"},
    "basis": {"gaming_day": "per gaming day", "visit": "per visit"},
    "game": GAMES,
    "announce": ANNOUNCE_WORDS,
    # What zero does to the even chances (``roulette.ZeroRule``).
    "reason": HAND_RESULTS,
    "roles": ROLE_WORDS,
    "roles_before": ROLE_WORDS,
    "roles_after": ROLE_WORDS,
    "zero_rule": {"la_partage": "la partage", "en_prison": "en prison", "lost": "lost (even chances lose on zero)"},
}
# Keys whose values are names of the data's own keys (the table rules a change changed).
NAME_KEYS = frozenset({"changed"})
# Keyed digests an identity event records (``staff.services``) for ``ledger verify`` to check
# the accounts against: a page says what was recorded, never the digest (the export keeps it).
DIGEST_WORDS = {
    "password_digest": "password set or changed (digest not shown)",
    "replaced_digest": "the replaced password (digest not shown)",
    "profile_digests": "name and e-mail recorded (digests not shown)",
    # A suspicion case's step (``compliance``): its words are the compliance officer's alone.
    "content_digest": "the step's words, kept by compliance (digest not shown)",
}


# A code value no table words (``highest_card``): its words are its parts.
CODE = re.compile(r"[a-z]+(?:_[a-z0-9]+)+")


# Keys whose values name people (user names may hold underscores): kept as written.
PEOPLE_KEYS = frozenset({"user", "username", "actor", "maker", "runner", "signer", "verifier", "dealer", "manager"})


def code_text(value: str, key: str = "") -> str:
    """A code of snake-case words as words (``highest_card`` → ``highest card``); other text,
    and a person's name (data ``key`` in ``PEOPLE_KEYS`` or ending ``_by``), as it is."""
    if key in PEOPLE_KEYS or key.endswith("_by"):
        return value
    return value.replace("_", " ") if CODE.fullmatch(value) else value


def code_words(key: str, value: object) -> str | None:
    """A known code value of data ``key`` in words (``channel`` ``cage_purchase`` → ``chips
    bought at the cage``, ``zero_rule`` ``la_partage`` → ``la partage``), a digest as what it
    records (``DIGEST_WORDS``), ``None`` for a value without words."""
    if key in DIGEST_WORDS:
        return DIGEST_WORDS[key]
    if not isinstance(value, str):
        return None
    if key in NAME_KEYS:
        return value.replace("_", " ")
    return CODE_WORDS.get(key, {}).get(value)


# Keys that are ids or internal plumbing: the line leaves them out (the audit row names the
# event's stream and hash; the API's events give the full data).
QUIET_KEYS = frozenset(
    {"table", "round", "bet", "shoe", "call", "lines", "announce_group", "position", "to", "index", "commitment"}
)


def _value(key: str, value: object) -> str | None:
    if (said := code_words(key, value)) is not None:
        return said
    if value is None or value == "" or isinstance(value, dict):
        return None
    if key.endswith("_cents") and type(value) is int:
        return eur(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if value and all(card_face(v) for v in value):
            return cards_text(value)
        return ", ".join(str(v) for v in value if not isinstance(v, (dict, list))) or None
    if card_face(value):
        return card_text(value)
    return code_text(value, key) if isinstance(value, str) else str(value)


def in_words(event_type: str, data: dict) -> str:
    """Any event as its type in words and its data as ``name value`` pairs (amounts through the
    money formatter, cards as ``10♥``, code values in words), ids and nested data left out."""
    parts = []
    for key, value in data.items():
        if key in QUIET_KEYS or (key == "card" and is_face_down(event_type, data)):
            continue
        shown = _value(key, value)
        if shown is not None:
            parts.append(f"{key.removesuffix('_cents').replace('_', ' ')} {shown}")
    return _later_entry(data) + event_words(event_type) + (": " + ", ".join(parts) if parts else "")


def worded(event_type: str, data: dict, *, round_over: bool = False) -> str | None:
    """The event's own line where its type has one (``LINES``, ``SUMMARIES``, an AML decision),
    ``None`` otherwise or when its data do not fit it. A face-down card (``is_face_down``)
    reads without its value unless ``round_over``."""
    if not isinstance(data, dict):
        return None
    if is_face_down(event_type, data) and not round_over:
        try:
            return _card(data, shown=False)
        except (KeyError, TypeError, AttributeError):
            return "card dealt face down"
    if event_type in AML_LABELS:
        return aml_line(event_type, data)
    for table in (LINES, SUMMARIES):
        make = table.get(event_type)
        if make is None:
            continue
        try:
            line = make(data)
        except (KeyError, TypeError, AttributeError, ValueError):
            line = ""
        if line:
            return _later_entry(data) + line
    return None


def line(event_type: str, data: dict, *, round_over: bool = False) -> str:
    """One line in words for any event (``worded``, else ``in_words``), at most 500 characters."""
    data = data if isinstance(data, dict) else {}
    return (worded(event_type, data, round_over=round_over) or in_words(event_type, data))[:500]


def _later_entry(data: dict) -> str:
    """``"later entry (form OUT1-R1): "`` for an event entered from an outage's paper form
    (``ledger.later_entries``), so every line that tells it says so first."""
    mark = data.get("later_entry")
    if not isinstance(mark, dict):
        return ""
    return f"later entry (form {mark.get('form', '?')}): "
