"""Reads for tables and rounds, and the row locks the services take."""

import functools
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import connection
from django.utils import timezone

from core.ids import uuid_of
from core.rawsql import columns, fetch_prepared, instance
from ledger import accounts, disowned, store
from ledger.errors import InvalidInput, NotFound
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.projections.table_stats import NOT_GAMING
from ledger.selectors import movement_cents
from patrons.models import Patron
from patrons.services import self_limit as self_limits

from .models import Bet, Round, Table
from .rules.roulette import InvalidBet
from .rules.roulette_table import RouletteTableRules
from .table_record import LATEST_RULES_SQL, rules_as_recorded


def table_for_update(code: str, *, rules_checked: bool = True) -> Table:
    """The table row, locked until commit; ``NotFound`` (404) when there is none;
    ``StateConflict`` (field ``rules``) when its rules are not its ledger's
    (``games.table_record``; ``rules_checked=False``: an opening, which sets them anew)."""
    table = Table.objects.select_for_update().filter(code=code).first() if isinstance(code, str) else None
    if table is None:
        raise NotFound(f"no table {code!r}", field="table")
    if rules_checked:
        rules_as_recorded(table)
    return table


def round_for_update(round_id: object) -> Round:
    """The round row, locked until commit; ``NotFound`` (404) when there is none."""
    try:
        key = uuid_of(round_id)
    except ValueError:
        raise NotFound(f"no round {round_id}", field="round") from None
    found = Round.objects.select_for_update().select_related("table").filter(pk=key).first()
    if found is None:
        raise NotFound(f"no round {round_id}", field="round")
    rules_as_recorded(found.table)  # every game's bets and settlements read them from the row
    return found


@dataclass
class BetPlacementReads:
    """What placing a bet checks, read under the writer lock (``bet_placement_reads``)."""

    coup: Round  # locked until commit; ``coup.table`` loaded
    patron: Patron | None  # None: no patron with that code
    self_limit_cents: int | None  # his own maximum (``cashier.SelfLimit``), None when he set none
    chips_cents: int  # value chips he holds in the table's currency, from the ledger (cents)
    placed: list[tuple[dict, int]] = field(default_factory=list)  # his bets on the coup: (position, stake)
    tip: store.Tip | None = None  # the round stream's tip for ``append`` (PostgreSQL)


# The patron's self-limit in force at the parameter's instant (``self_limit.in_force``): a raise
# pending until a weekly reset counts from that reset.
_LIMIT_IN_FORCE_SQL = (
    "(SELECT CASE WHEN s.pending_from <= %s THEN s.pending_max_bet_cents ELSE s.max_bet_cents END "
    "FROM cashier_selflimit s WHERE s.patron_code = p.code), "
    # The position, hash and seal of his latest SelfLimitSet (an index lookup on his stream): a
    # patron with none costs nothing more; one with some is held to his sealed limit
    # (``limit_with_ledger``: the event checked once a process), so a row raised or deleted with
    # raw SQL grants nothing.
    "(SELECT json_build_array(e.position, e.hash, e.seal) FROM ledger_event e WHERE e.stream = 'patron/' || p.code "
    f"AND e.type = '{self_limits.EVENT_TYPE}' ORDER BY e.version DESC LIMIT 1)"
)


@functools.cache  # built once: the models' columns do not change while the process runs
def _bet_placement_sql() -> str:
    return (
        f"SELECT {columns(Round, 'r')}, {columns(Table, 't')}, {columns(Patron, 'p')}, "
        f"{_LIMIT_IN_FORCE_SQL}, {LATEST_RULES_SQL}, "
        "(SELECT coalesce(sum(l.amount_cents), 0) FROM ledger_posting l "
        " WHERE l.account = %s AND l.currency = t.currency AND l.event_id <> ALL(%s::bigint[])), "
        "(SELECT json_agg(json_build_array(b.position, b.stake_cents)) FROM games_bet b "
        " WHERE b.round_id = r.id AND b.patron_id = p.id AND b.state = %s), "
        f"{store.TIP_SQL} "
        "FROM games_round r JOIN games_table t ON t.id = r.table_id LEFT JOIN cashier_patron p ON p.code = %s "
        "WHERE r.id = %s FOR UPDATE OF r"
    )


def bet_placement_reads(round_id: object, patron_code: object) -> BetPlacementReads:
    """The round (locked, with its table), the patron, his self-limit, his value chips, his
    bets already on the coup and the round stream's tip: one prepared statement on PostgreSQL
    instead of five ORM queries and the append's own read (a bet placement's reads were a
    fifth of its time). Call it under the writer lock (``ledger_command``). ``NotFound`` (404, field
    ``round``) when there is no such round; an unknown patron is ``patron`` None.
    """
    try:
        key = uuid_of(round_id)
    except ValueError:
        raise NotFound(f"no round {round_id}", field="round") from None
    code = patron_code if isinstance(patron_code, str) and "\x00" not in patron_code else None
    if connection.vendor != "postgresql":
        return _bet_placement_reads_orm(key, code)
    account = accounts.patron_chips(code) if code is not None else None
    stream = Round(id=key).stream
    day = current_gaming_day()
    # The chips as the ledger's postings sum them, but an event's the application did not write.
    left_out = sorted(disowned.positions())
    params = [self_limits.now(), account, left_out, Bet.State.PLACED.value, *store.tip_params(stream, day), code, key]
    rows = fetch_prepared(_bet_placement_sql(), params)
    if not rows:
        raise NotFound(f"no round {round_id}", field="round")
    row = rows[0]
    widths = [len(model._meta.concrete_fields) for model in (Round, Table, Patron)]
    coup = instance(Round, row[: widths[0]])
    coup.table = instance(Table, row[widths[0] : widths[0] + widths[1]])
    patron = instance(Patron, row[widths[0] + widths[1] : sum(widths)])
    limit, latest_limit, latest_rules, chips, placed, *tip = row[sum(widths) :]
    rules_as_recorded(coup.table, latest_rules)
    if patron is not None:
        limit = self_limits.limit_with_ledger(patron.code, limit, latest_limit, params[0])
    placed = [(p, s) for p, s in placed or ()]
    return BetPlacementReads(coup, patron, limit, chips, placed, store.Tip.from_row(tip, day))


def _bet_placement_reads_orm(key: uuid.UUID, code: str | None) -> BetPlacementReads:
    coup = round_for_update(key)
    patron = Patron.objects.filter(code=code).first() if code is not None else None
    if patron is None:
        return BetPlacementReads(coup, None, None, 0)
    return BetPlacementReads(
        coup,
        patron,
        self_limits.limit_in_force(code),
        store.balance(patron.chips_account, coup.table.currency),
        list(coup.bets.filter(patron=patron, state=Bet.State.PLACED).values_list("position", "stake_cents")),
    )


def batch_placement_reads(first: BetPlacementReads, codes: list[str]) -> dict[str, BetPlacementReads]:
    """``bet_placement_reads`` for every patron of ``codes`` on ``first.coup`` (already locked,
    read by ``bet_placement_reads(round_id, None)``), in one statement on PostgreSQL instead of
    one a patron: ``{code: reads}``, an unknown code's ``patron`` None. Call it under the writer
    lock, as the single read: balances cannot move until the command commits."""
    coup = first.coup
    wanted = sorted({c for c in codes if isinstance(c, str) and "\x00" not in c})
    if connection.vendor != "postgresql":
        return {c: BetPlacementReads(coup, *_patron_reads_orm(coup, c), tip=first.tip) for c in wanted}
    moment = self_limits.now()
    params = [
        moment,
        coup.table.currency,
        sorted(disowned.positions()),
        coup.id,
        Bet.State.PLACED.value,
        wanted,
        [accounts.patron_chips(c) for c in wanted],
    ]
    found = {}
    for row in fetch_prepared(_batch_placement_sql(), params):
        width = len(Patron._meta.concrete_fields)
        patron = instance(Patron, row[:width])
        limit, latest_limit, chips, placed = row[width:]
        limit = self_limits.limit_with_ledger(patron.code, limit, latest_limit, moment)
        found[patron.code] = BetPlacementReads(coup, patron, limit, chips, [(p, s) for p, s in placed or ()], first.tip)
    return {c: found.get(c) or BetPlacementReads(coup, None, None, 0, tip=first.tip) for c in wanted}


@functools.cache
def _batch_placement_sql() -> str:
    return (
        f"SELECT {columns(Patron, 'p')}, "
        f"{_LIMIT_IN_FORCE_SQL}, "
        "(SELECT coalesce(sum(l.amount_cents), 0) FROM ledger_posting l "
        " WHERE l.account = w.account AND l.currency = %s AND l.event_id <> ALL(%s::bigint[])), "
        "(SELECT json_agg(json_build_array(b.position, b.stake_cents)) FROM games_bet b "
        " WHERE b.round_id = %s AND b.patron_id = p.id AND b.state = %s) "
        "FROM unnest(%s::text[], %s::text[]) AS w(code, account) JOIN cashier_patron p ON p.code = w.code"
    )


def _patron_reads_orm(coup: Round, code: str) -> tuple:
    """``(patron, self_limit_cents, chips_cents, placed)`` of one patron on ``coup`` (SQLite)."""
    patron = Patron.objects.filter(code=code).first()
    if patron is None:
        return None, None, 0, []
    return (
        patron,
        self_limits.limit_in_force(code),
        store.balance(patron.chips_account, coup.table.currency),
        list(coup.bets.filter(patron=patron, state=Bet.State.PLACED).values_list("position", "stake_cents")),
    )


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


def running_rating(code: str, patron: str) -> Event | None:
    """Patron ``patron``'s ``RatingStarted`` at table ``code`` that no rating has stopped yet
    (``running_ratings``), or None."""
    return next((e for e in running_ratings(code) if e.data.get("patron") == patron), None)


def running_ratings(code: str) -> list[Event]:
    """The ``RatingStarted`` events of table ``code`` still running, oldest first: since the
    table last opened (a closed table times nobody), within the last 24 hours (the longest
    rating), none stopped by a ``PatronRatedManually`` naming it (``started``)."""
    stream = f"table/{code}"
    opened = (
        Event.objects.filter(stream=stream, type="TableOpened").order_by("-position").values_list("position", flat=True)
    ).first()
    if opened is None:
        return []
    recent = Event.objects.filter(
        stream=stream, position__gt=opened, occurred_at__gte=timezone.now() - timedelta(days=1)
    )
    stopped = set(
        recent.filter(type="PatronRatedManually", data__has_key="started").values_list("data__started", flat=True)
    )
    return [e for e in recent.filter(type="RatingStarted").order_by("position") if e.position not in stopped]
