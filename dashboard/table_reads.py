"""A table's page and a coup's audit: the last coups with their money, their play in words,
reversals, the day's win series and refusals, the shoes; a coup's events with what stays hidden
while it is played. Audit trails, payouts and the win chart come from the ledger itself
(authoritative, never stale); the coup in play and the shoes from the game models. Amounts are
integer cents, times UTC, win from the house's side.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Q, Sum
from django.utils import timezone

from basis.face_down import is_face_down
from core.ids import uuid_of
from games.catalog import spec
from games.models import BetRefusal, Round, Shoe, Table
from games.rules.event_words import AML_LABELS, aml_line
from ledger import accounts, withheld
from ledger.errors import NotFound
from ledger.gaming_day import current_gaming_day
from ledger.later_entries import FLAG
from ledger.models import Event, Posting
from ledger.projections.table_stats import NOT_GAMING, WIN_ACCOUNTS
from patrons.models import Patron

from .coups import describe
from .floor_cards import day_number, first_numbers_of_day, table_card
from .one_table import (
    LAST_COUPS,
    LAST_NUMBERS,
    LAST_REFUSALS,
    REFUSAL_FIELDS,
    hidden_aware_line,
    projection_lag,
    refusal,
)
from .play import HIDDEN, play_line, readable


def _table(code: str) -> Table:
    table = Table.objects.filter(code=code).first()
    if table is None:
        raise NotFound(f"no table {code!r}", field="table")
    return table


def coup_money(code: str, coups: list[Round]) -> dict[str, tuple[int, int | None]]:
    """``{coup id: (staked cents, house win cents or None)}`` of table ``code``'s ``coups``,
    from the ledger in one query: staked = what the coup's events put on the layout (antes and
    raises, doubles, splits, insurance: not only the first stake of each bet); house win = what
    they moved on the table's win accounts (tray, drop, colour chips issued), as the win chart
    and the table statistics count it; ``None`` while nothing is decided."""
    ids = [str(c.id) for c in coups]
    layout = accounts.table_layout(code)
    wins = [f"table:{code}:{suffix}" for suffix in sorted(WIN_ACCOUNTS)]
    rows = (
        Posting.objects.filter(
            Q(event__stream__in=[f"round/{i}" for i in ids]) | Q(event__correlation_id__in=ids),
            account__in=[layout, *wins],
            currency=settings.CASINO_CURRENCY,
        )
        .exclude(event__type__in=NOT_GAMING)
        .values_list("event__stream", "event__correlation_id", "account", "amount_cents")
    )
    staked = dict.fromkeys(ids, 0)
    won: dict[str, int | None] = dict.fromkeys(ids)
    for stream, correlation, account, amount in rows:
        key = stream.removeprefix("round/") if stream.startswith("round/") else correlation
        if key not in staked:
            continue
        if account == layout:
            staked[key] += max(amount, 0)
        else:
            won[key] = (won[key] or 0) + amount
    return {i: (staked[i], won[i]) for i in ids}


def _coup(coup: Round, money: tuple[int, int | None] | None = None) -> dict:
    """A coup's bets and result, with ``staked_cents`` and ``house_win_cents`` of ``coup_money``
    (read here when not given); ``house_win_cents`` is 0 for a settled coup that moved nothing,
    ``None`` only while nothing is decided (in play, or voided)."""
    staked, won = money or coup_money(coup.table.code, [coup])[str(coup.id)]
    if won is None and coup.state == Round.State.SETTLED:
        won = 0  # decided with nothing moved (a tie with every bet pushed): a win of nil, not "—"
    bets = [
        {
            "patron": bet.patron.code,
            "patron_name": bet.patron.name,
            "position": bet.position,
            "stake_cents": bet.stake_cents,
            "chips": bet.chips,
            "announce": bet.announce,
            "state": bet.state,
            "return_cents": bet.return_cents,
        }
        for bet in coup.bets.all()
    ]
    return {
        "id": str(coup.id),
        "number": coup.number,
        "state": coup.state,
        "result": coup.result,
        "bets": bets,
        "staked_cents": staked,
        "house_win_cents": won,
    }


DESCRIBING = ("CardDealt", "CoupResult", "DealerRevealed", "BoxDecided", "BetSettled", "PlayerDecided", "CardBurnt")


def _described(code: str, game: str, coups: list[Round]) -> list[dict]:
    """``_coup`` of each coup with ``"shown"``: its hands, totals and winner (``dashboard.coups``),
    read from the coups' events in one query."""
    events: dict[str, list[tuple[str, dict]]] = {str(c.id): [] for c in coups}
    rows = (
        Event.objects.filter(stream__in=[f"round/{c.id}" for c in coups], type__in=DESCRIBING)
        .order_by("position")
        .values_list("stream", "type", "data")
    )
    for stream, kind, data in rows:
        events[stream.removeprefix("round/")].append((kind, data))
    money = coup_money(code, coups)
    reversed_ = reversals(coups)
    later = later_entries(coups)
    return [
        {
            **_coup(c, money[str(c.id)]),
            "shown": describe(game, c.result, events[str(c.id)]),
            "reversal": reversed_.get(str(c.id)),
            "later_entry": later.get(str(c.id)),
        }
        for c in coups
    ]


def later_entries(coups: list[Round]) -> dict[str, dict]:
    """The coups of ``coups`` entered later from an outage's paper form, by round id: ``{"at"``
    (the paper's time), ``"entered_at"`` (the ledger's), ``"by"`` (who entered it),
    ``"approved_by"``, ``"form"}`` (``ledger.later_entries``, on the coup's first event)."""
    rows = Event.objects.filter(stream__in=[f"round/{c.id}" for c in coups], version=1, data__has_key=FLAG).values_list(
        "stream", "data", "occurred_at", "recorded_at"
    )
    return {
        stream.removeprefix("round/"): {
            "at": occurred,
            "entered_at": recorded,
            "by": data[FLAG]["entered_by"],
            "approved_by": data[FLAG]["approved_by"],
            "form": data[FLAG]["form"],
        }
        for stream, data, occurred, recorded in rows
    }


def reversals(coups: list[Round]) -> dict[str, dict]:
    """The corrections of these coups, by round id: ``{"by"`` (who asked), ``"approved_by",
    "at"`` (UTC), ``"reason"}``. A reversed coup keeps its state ``settled`` (the ledger is
    never edited: ``RoundReversed`` follows its settlement), so a page reads it from here."""
    rows = Event.objects.filter(stream__in=[f"round/{c.id}" for c in coups], type="RoundReversed").values(
        "stream", "actor", "occurred_at", "data"
    )
    return {
        row["stream"].removeprefix("round/"): {
            "by": row["actor"],
            "approved_by": (row["data"] or {}).get("approved_by"),
            "at": row["occurred_at"],
            "reason": (row["data"] or {}).get("reason"),
        }
        for row in rows
    }


def round_events(round_id: str, *, round_over: bool | None = None) -> list[dict]:
    """A coup's events from the ledger, oldest first: ``[{"position", "stream", "version",
    "type", "data", "summary", "actor", "occurred_at", "prev_hash", "hash"}]`` (every event of
    the round's stream and every event correlated with it; ``summary`` one readable line).
    Game protection: while the coup is in play (``round_over`` False; ``None``: read from the
    round's state) a face-down card's summary leaves its value out, and so does its ``data``."""
    if round_over is None:
        state = Round.objects.filter(pk=uuid_of(round_id)).values_list("state", flat=True).first()
        round_over = state in (Round.State.SETTLED, Round.State.VOIDED)
    rows = (
        Event.objects.filter(Q(stream=f"round/{round_id}") | Q(correlation_id=round_id))
        .order_by("position")
        .values("position", "stream", "version", "type", "data", "actor", "occurred_at", "prev_hash", "hash")
    )
    events = []
    hashes_from = withheld.hashes_withheld_from()
    for row in rows:
        data = row["data"] if isinstance(row["data"], dict) else {}
        line = play_line(row["type"], data, hidden_aware_line, round_over=round_over) or readable(
            row["type"], data, round_over=round_over
        )
        if not round_over and is_face_down(row["type"], data):
            row["data"] = {k: v for k, v in data.items() if k != "card"}
        # A hash is of the card as recorded, and every later one chains to it: shown with the
        # rest of the envelope, 52 guesses find the card (``ledger.withheld``).
        if not withheld.hash_shown(row["position"], hashes_from):
            row["hash"] = row["prev_hash"] = withheld.HASH_WITHHELD
        events.append({**row, "summary": line})
    return events


def with_patron_names(events: list[dict]) -> list[dict]:
    """``events`` with each patron code in a ``summary`` written as ``Name (code)``: a pit boss
    knows his patrons by name, the code second (a patron with no name on file keeps his code)."""
    codes = {e["data"].get("patron") for e in events if isinstance(e.get("data"), dict)} - {None}
    names = dict(Patron.objects.filter(code__in=codes).exclude(name="").values_list("code", "name")) if codes else {}
    for event in events:
        code = event["data"].get("patron") if isinstance(event.get("data"), dict) else None
        if code in names and isinstance(event.get("summary"), str):
            line = event["summary"]
            # "seat 1 (P00001)" → "seat 1 (Jeanne Martin, P00001)"; "P00001 bets" → "Jeanne Martin (P00001) bets"
            if f"({code})" in line:
                event["summary"] = line.replace(f"({code})", f"({names[code]}, {code})", 1)
            else:
                event["summary"] = re.sub(rf"\b{re.escape(code)}\b", f"{names[code]} ({code})", line, count=1)
    return events


def _play(round_id: str, day_number: int | None = None) -> list[dict]:
    """The coup in play as the table view tells it: ``[{"position", "at" (UTC), "line"}]``
    (``dashboard.play``); the page shows the time, the ledger position only on the audit trail.
    ``day_number``: the coup's number in the day, as the page heads it; its opening line says
    that number first (the ledger's line names the table's running number)."""
    lines = []
    for e in with_patron_names(round_events(round_id, round_over=False)):
        if e["type"] in HIDDEN:
            continue
        line = e["summary"]
        if e["type"] == "RoundOpened" and day_number is not None:
            line = f"coup {day_number} of the day open for bets (the table's coup {e['data'].get('number')})"
        lines.append({"position": e["position"], "at": e["occurred_at"], "line": line})
    return lines


def win_series(code: str, *, day: date, max_points: int = 240) -> list[tuple[datetime, int]]:
    """The table's cumulative win over the gaming day, one point per coup (or other event) that moved it:
    ``[(occurred_at UTC, win so far in cents)]``. Read from the postings on the table's tray,
    drop and colour_issued, leaving out the non-gaming movements, as the table statistics do
    (``ledger.projections.table_stats``), so the last point equals the day's win. Past
    ``max_points`` it keeps every k-th point and always the last."""
    names = [f"table:{code}:{suffix}" for suffix in sorted(WIN_ACCOUNTS)]
    rows = (
        Posting.objects.filter(account__in=names, currency=settings.CASINO_CURRENCY, event__gaming_day=day)
        .exclude(event__type__in=NOT_GAMING)
        .values("event_id", "event__occurred_at", "event__correlation_id")
        .annotate(moved=Sum("amount_cents"))
        .order_by("event_id")
    )
    series, running, last_coup = [], 0, None
    for row in rows:
        if not row["moved"]:
            continue
        running += row["moved"]
        coup = row["event__correlation_id"]
        if coup and coup == last_coup:  # one point per coup: its settlement lines are many events
            series[-1] = (row["event__occurred_at"], running)
        else:
            series.append((row["event__occurred_at"], running))
        last_coup = coup
    if len(series) > max_points:  # a busy day: every k-th point and the last, enough for a chart
        step = -(-len(series) // max_points)
        series = series[step - 1 :: step] + ([series[-1]] if len(series) % step else [])
    return series


def day_start(code: str, *, day: date) -> datetime:
    """When table ``code``'s win of gaming day ``day`` was nil (UTC): its first opening that day,
    else the gaming day's start (``GAMING_DAY_START`` in ``CASINO_TIMEZONE``)."""
    opened = (
        Event.objects.filter(stream=f"table/{code}", type="TableOpened", gaming_day=day)
        .order_by("position")
        .values_list("occurred_at", flat=True)
        .first()
    )
    if opened is not None:
        return opened
    hour, minute = (int(part) for part in settings.GAMING_DAY_START.split(":"))
    local = datetime.combine(day, time(hour, minute), tzinfo=ZoneInfo(settings.CASINO_TIMEZONE))
    return local.astimezone(UTC)


def refusals_of_day(code: str, *, day: date, limit: int = LAST_REFUSALS) -> list[dict]:
    """The bets refused at table ``code`` over a limit during gaming day ``day``, newest first
    (at most ``limit``): ``refusal`` dicts with ``"coup"``, the coup's number (``None`` when the
    refusal names no coup)."""
    rows = BetRefusal.objects.filter(gaming_day=day, table_code=code).order_by("-created_at", "-id")
    refusals = [refusal(row) for row in rows.values(*REFUSAL_FIELDS)[:limit]]
    ids = {r["round"] for r in refusals if r["round"]}
    numbers = {str(key): n for key, n in Round.objects.filter(id__in=ids).values_list("id", "number")}
    first = first_numbers_of_day(list(Table.objects.filter(code=code).values_list("id", flat=True)), day)
    first_today = next(iter(first.values()), None)
    return [
        {**r, "coup": day_number(numbers[r["round"]], first_today) if r["round"] in numbers else None} for r in refusals
    ]


def shoe_name(table: Table, shoe_id: str) -> dict:
    """``{"number": n, "opened_at": UTC datetime}`` of a shoe: the n-th shoe the table started on
    that gaming day (by its stream's first event), for a page that names it without its id;
    ``{}`` for a shoe with no event."""
    first = {
        stream: (position, day, at)
        for stream, position, day, at in Event.objects.filter(
            stream__in=[f"shoe/{key}" for key in Shoe.objects.filter(table=table).values_list("id", flat=True)],
            version=1,
        ).values_list("stream", "position", "gaming_day", "occurred_at")
    }
    own = first.get(f"shoe/{shoe_id}")
    if own is None:
        return {}
    number = sum(1 for position, day, _ in first.values() if day == own[1] and position <= own[0])
    return {"number": number, "opened_at": own[2]}


def _of_day(coups: list[Round], day: date) -> list[Round]:
    """The coups of ``coups`` opened on gaming day ``day`` (same order), by the gaming day of
    their stream's first event: a table open across the rollover keeps yesterday's coups out
    of today's lists."""
    opened = dict(
        Event.objects.filter(stream__in=[f"round/{c.id}" for c in coups], version=1).values_list("stream", "gaming_day")
    )
    return [c for c in coups if opened.get(f"round/{c.id}") == day]


def table_detail(code: str, *, day: date | None = None, now: datetime | None = None) -> dict:
    """One table: its card, the coup in play (bets and its events: cards, decisions), the last
    coups of gaming day ``day`` with outcomes, roulette's last numbers of that day, baccarat's
    bead plate and big road (``number`` and ``opened_at`` naming the shoe), the win series of
    the day with ``series_start`` (``day_start``) and the day's refused bets
    (``refusals_of_day``). ``NotFound`` (404) for an unknown table."""
    from games.services.baccarat import shoe_history  # a read: the service module's selector

    table = _table(code)
    day = day or current_gaming_day()
    now = now or timezone.now()
    card = table_card(table, day=day, now=now, lag=projection_lag())
    rounds = Round.objects.filter(table=table).prefetch_related("bets__patron")
    in_play = rounds.filter(state__in=Round.IN_PLAY).order_by("-number").first()
    last = _of_day(list(rounds.exclude(state__in=Round.IN_PLAY).order_by("-number")[:LAST_COUPS]), day)
    numbers = []
    game = spec(table.game)
    if not game.cards:  # a wheel: its last numbers
        results = Round.objects.filter(table=table, state=Round.State.SETTLED).order_by("-number")
        spins = _of_day(list(results.only("id", "result")[:LAST_NUMBERS]), day)
        numbers = [r.result["number"] for r in spins if isinstance(r.result, dict)]
    history = None
    if game.scoreboard:
        # The shoe of the table's latest coup (the one in play, or the last one closed).
        shoe_id = (
            Event.objects.filter(type="CoupResult", data__table=code)
            .order_by("-position")
            .values_list("data__shoe", flat=True)
            .first()
        )
        if shoe_id is None and card["shoe"]:
            shoe_id = card["shoe"]["id"]
        if shoe_id is not None:
            history = shoe_history(str(shoe_id)) | shoe_name(table, str(shoe_id))
            history["big_road_rows"] = max((len(column) for column in history["big_road"]), default=0)
    first = first_numbers_of_day([table.id], day).get(table.id)
    last_coups = _described(table.code, table.game, last)
    for coup in last_coups:
        coup["number"] = day_number(coup["number"], first)
    in_play_coup = None
    if in_play:
        number = day_number(in_play.number, first)
        in_play_coup = {**_coup(in_play), "play": _play(str(in_play.id), number), "number": number}
    return {
        "table": card,
        "gaming_day": day,
        "in_play": in_play_coup,
        "last_coups": last_coups,
        "last_numbers": numbers,
        "baccarat": history,
        "win_series": win_series(code, day=day),
        "series_start": day_start(code, day=day),
        "refusals": refusals_of_day(code, day=day),
    }


def coup_audit(round_id: str) -> dict:
    """A coup's audit trail: ``{"round": {...}, "table", "events": [...]}`` with positions,
    versions, hashes and each event's link to the previous hash. ``NotFound`` (404)."""
    try:
        key = uuid_of(round_id)
    except ValueError:
        raise NotFound(f"no round {round_id}", field="round") from None
    coup = Round.objects.select_related("table").prefetch_related("bets__patron").filter(pk=key).first()
    if coup is None:
        raise NotFound(f"no round {round_id}", field="round")
    over = coup.state in (Round.State.SETTLED, Round.State.VOIDED)
    described = _coup(coup) | {"reversal": reversals([coup]).get(str(coup.id))}
    opened = Event.objects.filter(stream=f"round/{coup.id}", version=1).values_list("gaming_day", flat=True).first()
    if opened is not None:
        described["number"] = day_number(coup.number, first_numbers_of_day([coup.table_id], opened).get(coup.table_id))
        described["gaming_day"] = opened
    events = with_patron_names(round_events(str(coup.id), round_over=over))
    _coup_of_day(events, coup.number, described["number"], coup.table.code)
    return {"round": described, "table": coup.table.code, "events": events}


def _coup_of_day(events: list[dict], number: int, of_day: int, table: str) -> None:
    """The events' lines say the coup's number of the day ("coup 3 of R1"), as the page does,
    not the table's running counter."""
    if number == of_day:
        return
    for event in events:
        if isinstance(event.get("summary"), str):
            event["summary"] = event["summary"].replace(f"coup {number} of {table}", f"coup {of_day} of {table}")


def aml_flags(code: str) -> list[dict]:
    """The patron's AML decisions, newest first (at most 50): the events of stream ``aml/<code>``
    and any ``Aml…`` event naming him (identity checked, transaction logged or refused,
    aggregate flagged; ``patrons.services.aml``): ``[{"position", "type", "summary", "gaming_day",
    "occurred_at" (UTC), "actor"}]``. ``position`` is for a link to the event, never for reading."""
    rows = (
        Event.objects.filter(Q(stream=f"aml/{code}") | Q(type__startswith="Aml", data__patron=code))
        .order_by("-position")
        .values("position", "type", "data", "gaming_day", "occurred_at", "actor")[:50]
    )
    return [{**r, "summary": aml_summary(r["type"], r["data"] if isinstance(r["data"], dict) else {})} for r in rows]


def aml_summary(event_type: str, data: dict) -> str:
    """One readable line for an AML decision (``games.rules.event_words.aml_line``: what, which
    way, how much against which threshold), any other shape as ``hidden_aware_line`` says it."""
    return aml_line(event_type, data) or hidden_aware_line(event_type, data)


def event_line(event_type: str, data: dict, *, round_over: bool = False) -> str:
    """One line in words for any event, as the dashboard says it: an AML decision as on the
    patron page, another event as in the play feed or the audit trail; a face-down card
    without its value unless ``round_over``."""
    data = data if isinstance(data, dict) else {}
    if event_type in AML_LABELS:
        return aml_summary(event_type, data)
    return play_line(event_type, data, hidden_aware_line, round_over=round_over) or readable(
        event_type, data, round_over=round_over
    )
