"""What the rest of the house asks of a game, said once per game (``games.catalog``).

A ``GameSpec`` names a game as people write it, gives its table rule set's class (from the
pure engines, ``games.rules``), which rule options are a table's minima and maxima (cents), and
how its coups are dealt. Services, pages and reports read these instead of comparing the
game's code: a seventh game is one more module in this package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


class TableRules(Protocol):
    """A game's table rule set (``games.rules``): parsed from the stored options (defaults
    filled in, ``RuleError`` or ``InvalidBet`` naming the option at fault), stored back."""

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> TableRules: ...

    def to_dict(self) -> dict[str, Any]: ...


# What a game's services module may provide (``GameSpec.provide``):
# - ``deal``: ``(round_id, actor, idempotency_key) -> dict``, a coup whose bets are closed dealt;
# - ``report_card``: the same with ``card``, a card reported by the reader or the terminal;
# - ``batch_bet``: one bet of a batch, called with the bet's ``batch_fields``;
# - ``on_layout``: ``Round -> {bet id: cents}``, what each bet still has on the layout when the
#   coup is voided (its stake when absent);
# - ``after_void``: ``(Command, Round)``, what a void does besides giving the stakes back.
SERVICES = ("deal", "report_card", "batch_bet", "on_layout", "after_void")


@dataclass(frozen=True)
class GameSpec:
    """One game of the house.

    - ``code``: its code, as a table stores it (``"english_roulette"``);
    - ``name``: as people write it on screens and reports (``"English roulette"``);
    - ``in_a_sentence``: as it reads inside a sentence (``"black jack"``);
    - ``rules``: its table rule set's class;
    - ``minima``, ``maxima``: the rule options that are a minimum or a maximum bet (cents),
      which the house's approved range bounds (``games.services.table_limits``);
    - ``minima_in_colour_chips``: minima played in colour chips, which the table's smallest
      value chip does not bound (English roulette's numbers, sheet 000);
    - ``dealt_from_a_shoe``: a coup needs the table's shoe in play (black jack, punto banco,
      trente-et-quarante); the stud games deal each coup from a fresh deck;
    - ``cards``: dealt with cards (every game but roulette);
    - ``most_in_a_round``: for a game without a maximum bet, the most one player can put in
      during a coup under a rule set (cents), which the house's maximum bounds instead;
    - ``limit_labels``: ``(option, label)`` of the limits a pit boss reads and changes on the
      table's page, in that order;
    - ``limit_kinds``: ``rules -> [{"kind", "min_cents", "max_cents", "note"}]``, one line per kind
      of bet with limits of its own, the main bet's first (``every_bet`` by default);
    - ``table_options``: ``rules -> [text]``, the game's own options that decide which bets are
      taken, in words (English roulette's even-chance variant);
    - ``theory_on``: what its house edge is relative to, for a day's theoretical win:
      ``"handle"``, ``"antes"`` (Caribbean stud's edge is per ante) or ``"rake"`` (classic stud:
      the players play each other, the house's theory is its rake);
    - ``edge_words``: ``rules -> {"short", "source"}``, the house edge before any bet as a page
      says it, for a game whose edge is not one figure of ``games.rules.house_edges``;
    - ``edge_per``: what the edge figure is per, after it (" of the ante");
    - ``scoreboard``: the table's page shows its shoe's coups as a scoreboard (punto banco's
      road); ``cards`` False: it shows the wheel's last numbers instead;
    - ``layout_bets``: its bets are positions on a roulette layout, placed one by one or in
      batches by ``games.services.bets`` and settled by a winning number
      (``rounds.round_record_result``), in value or colour chips; its patrons buy colour chips;
    - ``burn_cards``: cards burned at the top of a new shoe (``dealt_from_a_shoe`` games);
    - ``move_bet``: ``name -> chance`` (``RuleError`` for none), the engine's check of the
      chance a bet moves to before betting closes; None: a bet is withdrawn, never moved;
    - ``house_edge``: ``rules -> (edge, basis)``, the edge of a rule set (a ``Decimal`` fraction
      of the stake) and how it was found (``games.rules.house_edges``); ``RuleError`` for
      rules it cannot read; None: the game declares no edge;
    - ``line_edge``: ``(rules, line) -> text``, the edge its service writes into each
      ``BetSettled`` when it is not ``house_edge``'s figure (trente-et-quarante, Caribbean stud);
    - ``line_variance``: ``(rules, data) -> Fraction | None``, the variance per unit staked of
      the bet a deciding event's ``data`` settles under ``rules`` (``games.rules.bet_variance``),
      which game protection sums as Σ stake² × variance; None: the game declares none;
    - ``bets_without_edge``: ``rules -> [(bet, edge)]``, the bets on which ``rules`` give the
      house no edge (≤ 0); by default the game's one ``house_edge`` figure when it is ≤ 0;
    - ``describe_coup``: ``(result, events) -> {"hands", "verdict"}``, a finished coup as the
      table page reads it (``games.rules.coups``);
    - ``batch_fields``: the fields of a batch's bet its ``batch_bet`` service takes;
    - ``services``: the game's own services, which its services module ``provide``-s when
      it is imported (it imports the catalog, so the catalog cannot import it; ``games.apps``
      imports every one at start): ``service(name)`` is one of ``SERVICES``, or None.
    """

    code: str
    name: str
    in_a_sentence: str
    rules: type[TableRules]
    minima: tuple[str, ...]
    maxima: tuple[str, ...] = ()
    minima_in_colour_chips: frozenset[str] = field(default_factory=frozenset)
    dealt_from_a_shoe: bool = False
    cards: bool = True
    most_in_a_round: Callable[[dict[str, Any]], int] | None = None
    limit_labels: tuple[tuple[str, str], ...] = ()
    limit_kinds: Callable[[dict[str, Any]], list[dict]] | None = None
    table_options: Callable[[dict[str, Any]], list[str]] | None = None
    theory_on: str = "handle"
    edge_words: Callable[[dict[str, Any]], dict[str, str]] | None = None
    edge_per: str = ""
    scoreboard: bool = False
    layout_bets: bool = False
    house_edge: Callable[[dict[str, Any]], tuple[Any, str]] | None = None
    line_edge: Callable[[dict[str, Any] | None, str | None], str] | None = None
    line_variance: Callable[[dict[str, Any] | None, dict[str, Any]], Any] | None = None
    bets_without_edge: Callable[[dict[str, Any]], list[tuple[str, Any]]] | None = None
    burn_cards: int = 0
    move_bet: Callable[[str], str] | None = None
    describe_coup: Callable[[dict, list], dict] | None = None
    batch_fields: frozenset[str] = field(default_factory=frozenset)
    services: dict[str, Callable[..., Any]] = field(default_factory=dict, compare=False, repr=False)

    def provide(self, **services: Callable[..., Any]) -> None:
        """The game's services (``SERVICES``) from its services module. ``ValueError`` for a
        name that is none of them."""
        unknown = sorted(set(services) - set(SERVICES))
        if unknown:
            raise ValueError(f"no game service {unknown[0]!r}: one of {', '.join(SERVICES)}")
        self.services.update(services)

    def service(self, name: str) -> Callable[..., Any] | None:
        """The game's service ``name`` (one of ``SERVICES``), or None when it has none."""
        if name not in SERVICES:
            raise ValueError(f"no game service {name!r}: one of {', '.join(SERVICES)}")
        return self.services.get(name)

    def kinds_of_limits(self, rules: dict[str, Any]) -> list[dict]:
        """``limit_kinds`` of ``rules``, each with a ``note`` ("" when none)."""
        kinds = (self.limit_kinds or every_bet)(rules)
        return [{"note": "", **kind} for kind in kinds]


def cents_option(rules: dict[str, Any], key: str) -> int | None:
    """The rule option ``key`` when it is a whole number of cents, else None."""
    value = rules.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def every_bet(rules: dict[str, Any]) -> list[dict]:
    """One kind of bet: every bet, between ``min_bet_cents`` and ``max_bet_cents``."""
    return [
        {
            "kind": "every bet",
            "min_cents": cents_option(rules, "min_bet_cents"),
            "max_cents": cents_option(rules, "max_bet_cents"),
        }
    ]
