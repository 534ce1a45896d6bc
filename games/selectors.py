"""Reads for tables and rounds, and the row locks the services take."""

import uuid

from ledger import accounts
from ledger.errors import InvalidInput, NotFound
from ledger.models import Event
from ledger.projections.table_stats import NOT_GAMING
from ledger.selectors import movement_cents

from .models import Round, Table
from .rules.roulette import InvalidBet
from .rules.roulette_table import RouletteTableRules


def table_for_update(code: str) -> Table:
    """The table row, locked until commit; ``NotFound`` (404) when there is none."""
    table = Table.objects.select_for_update().filter(code=code).first() if isinstance(code, str) else None
    if table is None:
        raise NotFound(f"no table {code!r}", field="table")
    return table


def round_for_update(round_id: object) -> Round:
    """The round row, locked until commit; ``NotFound`` (404) when there is none."""
    try:
        key = uuid.UUID(str(round_id))
    except ValueError:
        raise NotFound(f"no round {round_id}", field="round") from None
    found = Round.objects.select_for_update().select_related("table").filter(pk=key).first()
    if found is None:
        raise NotFound(f"no round {round_id}", field="round")
    return found


def roulette_rules(table: Table) -> RouletteTableRules:
    """The rule set the table opened with (RULES.md §Roulette)."""
    try:
        return RouletteTableRules.from_dict(table.rules)
    except InvalidBet as exc:  # a stored rule set is validated at open; this is corruption
        raise InvalidInput(exc.message, field=exc.field) from exc


def round_in_play(table: Table) -> Round | None:
    return table.rounds.filter(state__in=Round.IN_PLAY).first()


def table_win_cents(code: str, *, after: int = 0, upto: int | None = None, currency: str = "EUR") -> int:
    """The table's win over events ``after < position <= upto``, from its accounts in the ledger.

    win = Δ(tray + drop + colour_issued): a buy-in moves chips from the tray to the patron and
    cash into the drop (net 0); a lost stake adds to the tray (or to colour_issued for colour
    chips), a payout takes from it. Stocking the tray at ``TableOpened`` is the opener, not
    win; nor are fills, credits, their reversals and the drop count (``NOT_GAMING``).
    """
    accounts_of_table = [accounts.table_tray(code), accounts.table_drop(code), accounts.table_colour_issued(code)]
    return movement_cents(accounts_of_table, after=after, upto=upto, currency=currency, excluding_types=NOT_GAMING)


SETTLING = ["BetSettled", "BetReleased", "BetLostInPrison", "BetReleasedOnClose"]


def settlements_net_cents(code: str, *, after: int = 0, upto: int | None = None) -> dict[str, int]:
    """From the events that decide a stake (``BetSettled``, and a prison bet's release or loss):
    ``{"staked", "returned", "house_win"}`` in cents."""
    events = Event.objects.filter(type__in=SETTLING, data__table=code, position__gt=after)
    if upto is not None:
        events = events.filter(position__lte=upto)
    staked = returned = 0
    for data in events.values_list("data", flat=True).iterator(chunk_size=2000):
        staked += data["stake_cents"]
        returned += data["return_cents"]
    return {"staked": staked, "returned": returned, "house_win": staked - returned}


def patron_result_cents(patron: str, *, after: int = 0) -> int:
    """The patron's gaming result (won − lost, cents) from his ``BetSettled`` events after ``after``."""
    net = 0
    events = Event.objects.filter(type="BetSettled", data__patron=patron, position__gt=after)
    for data in events.values_list("data", flat=True).iterator(chunk_size=2000):
        net += data["return_cents"] - data["stake_cents"]
    return net
