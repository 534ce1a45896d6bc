"""Reads behind the pit boss's forms: who may sign, the approvals waiting for a person, a
table's slips of the day, the limits a form may change. Plain dicts, never a write; amounts
in integer cents, times UTC (the templates show them in the casino's zone)."""

from __future__ import annotations

import uuid
from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from approvals.acts import ACTS, assigned_dealers
from approvals.models import Approval
from approvals.replay import differences
from approvals.selectors import outside_scope
from basis.errors import RuleError
from basis.money import currency
from cashier.credit_models import Marker
from cashier.services.count_room import box_removal
from cashier.slip_models import Slip
from core.denominations import chip_denominations
from core.ids import uuid_of
from games import selectors as games_selectors
from games.catalog import GAMES, spec
from games.catalog.classic_stud import STUD_ROUNDS
from games.models import Round, Table
from games.names import game_name
from games.services.table_limits import approved_range
from ledger import accounts, store
from ledger.errors import NotFound
from ledger.gaming_day import current_gaming_day, gaming_day_of
from ledger.models import Event
from patrons.models import Patron
from staff.roles import Role, has_role
from staff.selectors import users_with

from . import floor_cards
from .alerts import eur
from .one_table import edge

# The limits a pit boss changes from his table page, per game: (rule option, label), as each
# game declares them (``games.catalog``). Classic
# stud's limits are its base stake and the most a player puts in each round (``caps``, stored as
# multiples of the base stake): the page shows and takes each round's most in money
# (``STUD_ROUNDS``; ``dashboard.forms.stud_limits`` turns them back into multiples).
LIMIT_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {code: game.limit_labels for code, game in GAMES.items()}


def limits_in_money(game: str, rules: dict | None) -> dict:
    """``{option: cents}`` of ``LIMIT_FIELDS[game]`` in rule set ``rules`` (an option it leaves
    out is absent); classic stud's rounds as the most a player puts in, in cents."""
    rules = dict(rules or {})
    if spec(game).most_in_a_round is not None:  # limits per round (classic stud)
        try:
            stud = spec(game).rules.from_dict(rules).game
        except RuleError:  # a rule set the engine refuses: no value in force to show
            return {}
        rules = {"base_stake_cents": stud.base_stake_cents}
        rules |= {option: stud.cap_cents(n) for n, option in enumerate(STUD_ROUNDS, start=1)}
    return {
        option: rules[option]
        for option, _ in LIMIT_FIELDS.get(game, ())
        if isinstance(rules.get(option), int) and not isinstance(rules.get(option), bool)
    }


def limit_fields(table: Table) -> list[dict]:
    """``[{"option", "label", "cents"}]``: the table's limits its page lets the pit boss change,
    with the value in force (``None`` when the rule set leaves it out)."""
    in_money = limits_in_money(table.game, table.rules)
    return [
        {"option": option, "label": label, "cents": in_money.get(option)}
        for option, label in LIMIT_FIELDS.get(table.game, ())
    ]


def denominations() -> list[int]:
    """The chip denominations a count form offers, largest first (cents)."""
    return sorted(chip_denominations(), reverse=True)


def _count_words(count: dict) -> str:
    lines = sorted(((int(d), n) for d, n in (count or {}).items()), reverse=True)
    return ", ".join(f"{n} × {eur(d)}" for d, n in lines)


def _total(count: object) -> int:
    """Cents of ``{denomination: pieces}``; 0 for anything else (a row altered with raw SQL is
    shown, marked, not a 500)."""
    try:
        return sum(int(d) * int(n) for d, n in (count or {}).items())
    except (AttributeError, TypeError, ValueError):
        return 0


def _box_words(box: object) -> str:
    """``{"table": "T1"}`` → ``the tip box of table T1``; ``{"dealer": "d1"}`` → ``d1's toke box``."""
    if isinstance(box, dict) and box.get("table"):
        return f"the tip box of table {box['table']}"
    if isinstance(box, dict) and box.get("dealer"):
        return f"{box['dealer']}'s toke box"
    return "a tip box"


def approval_words(approval: Approval) -> str:
    """What an approval asks, in the pit boss's words (never its id or its payload's keys)."""
    p = approval.payload
    kind = approval.kind
    if kind == "table_open_counted":
        return (
            f"Open table {p.get('code')} ({game_name(p.get('game', ''))}) with an opener of "
            f"{eur(_total(p.get('opener')))}: {_count_words(p.get('opener'))}"
        )
    if kind == "table_close_counted":
        closer = p.get("closer")
        return f"Close table {p.get('code')} with a closer of {eur(_total(closer))}: {_count_words(closer)}"
    if kind == "slip_request":
        return f"A {p.get('kind')} of {eur(_total(p.get('denominations')))} for table {p.get('table')}"
    if kind == "slip_issue":
        return f"Carry {p.get('kind')} {p.get('serial')}{_slip_place(p)}"
    if kind == "slip_accept":
        slip = Slip.objects.filter(kind=p.get("kind"), serial=p.get("serial")).first()
        count = f": {_count_words(slip.denominations)}" if slip is not None else ""
        return f"Count and accept {p.get('kind')} {p.get('serial')}{_slip_place(p)}{count}"
    if kind in ("slip_void", "slip_reverse"):
        verb = "Void" if kind == "slip_void" else "Reverse"
        return f"{verb} {p.get('kind')} {p.get('serial')}{_slip_place(p)}: “{p.get('reason')}”"
    if kind == "round_reverse":
        return f"Reverse {_coup_words(p.get('round_id'))}: “{p.get('reason')}”"
    if kind == "round_void":
        return f"Void {_coup_words(p.get('round_id'))} after its deal, every stake back: “{p.get('reason')}”"
    if kind == "drop_count_reverse":
        return (
            f"Reverse the drop count of table {p.get('table')}, gaming day {p.get('gaming_day')}: “{p.get('reason')}”"
        )
    if kind == "drop_count":
        return (
            f"Drop count of table {p.get('table')}, gaming day {p.get('gaming_day')}: {eur(_total(p.get('cash')))}"
            f" counted by {_names(p.get('counters'))}"
        )
    if kind == "drop_box_remove":
        return (
            f"Remove the drop box of table {p.get('table')}, gaming day {p.get('gaming_day')},"
            f" by {_names(p.get('removers'))}"
        )
    if kind == "tips_count":
        total = _total(p.get("cash")) + _total(p.get("chips"))
        return (
            f"Tips count of {_box_words(p.get('box'))}, gaming day {p.get('gaming_day')}: {eur(total)}, counted by"
            f" {_names(p.get('counters'))} with {p.get('manager')} for the management"
        )
    if kind == "paper_coup_enter":
        return _paper_coup_words(p)
    if kind == "paper_cage_enter":
        what = "chip sale to" if p.get("transaction") == "purchase" else "chip redemption by"
        amount = p.get("amount_cents") if type(p.get("amount_cents")) is int else 0
        return f"Later entry from paper form {p.get('form')}: {what} {p.get('patron')} of {eur(amount)}"
    if kind == "paper_slip_enter":
        return _paper_slip_words(p)
    if kind == "paper_buy_in_enter":
        amount = p.get("amount_cents") if type(p.get("amount_cents")) is int else 0
        return (
            f"Later entry from paper form {p.get('form')}: a cash buy-in of {eur(amount)} by {p.get('patron')}"
            f" at {_paper_time(p.get('occurred_at'))}"
        )
    if kind == "paper_marker_enter":
        amount = p.get("amount_cents") if type(p.get("amount_cents")) is int else 0
        return (
            f"Later entry from paper form {p.get('form')}: a marker of {eur(amount)} signed by {p.get('patron')}"
            f" at {_paper_time(p.get('occurred_at'))}, issued by {p.get('issued_by')}"
        )
    return ACTS[kind].what.capitalize() if kind in ACTS else kind


def _paper_time(value: object) -> str:
    try:
        played = datetime.fromisoformat(str(value)).astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    except ValueError:
        return "an unreadable time"
    return played.strftime("%H:%M %Z")


def _paper_slip_words(p: dict) -> str:
    """A fill or credit written on an outage's paper form, to be entered as a later entry."""
    signers = p.get("signers") if isinstance(p.get("signers"), dict) else {}
    return (
        f"Later entry from paper form {p.get('form')}: a {p.get('kind')} of {eur(_total(p.get('denominations')))}"
        f" at {_paper_time(p.get('occurred_at'))}, requested by {signers.get('requested_by')}, issued by"
        f" {signers.get('issued_by')}, carried by {signers.get('runner')}, accepted by {signers.get('accepted_by')}"
    )


def _paper_coup_words(p: dict) -> str:
    """A coup written on an outage's paper form, to be entered as a later entry."""
    bets = p.get("bets") if isinstance(p.get("bets"), list) else []
    staked = sum(b.get("stake_cents", 0) for b in bets if isinstance(b, dict) and type(b.get("stake_cents")) is int)
    try:
        played = datetime.fromisoformat(str(p.get("occurred_at"))).astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
        at = played.strftime("%H:%M %Z")
    except ValueError:
        at = "an unreadable time"
    return (
        f"Later entry from paper form {p.get('form')}: a coup played at {at}, winning number "
        f"{p.get('number')}, {len(bets)} bet{'s' if len(bets) != 1 else ''} staking {eur(staked)}"
    )


def _names(people: object) -> str:
    """``["count1", "count2"]`` → ``count1 and count2``; anything else → ``nobody named``."""
    names = [str(n) for n in people] if isinstance(people, list) else []
    if not names:
        return "nobody named"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _slip_place(payload: dict) -> str:
    slip = Slip.objects.filter(kind=payload.get("kind"), serial=payload.get("serial")).select_related("table").first()
    if slip is None:
        return ""
    return f" ({eur(slip.amount_cents)}, table {slip.table.code})"


def _coup_words(round_id: object) -> str:
    try:
        key = uuid_of(round_id) if isinstance(round_id, str) else None
    except ValueError:
        key = None
    coup = Round.objects.filter(id=key).select_related("table").first() if key is not None else None
    if coup is None:
        return "a coup"
    return f"coup {day_number(coup)} at table {coup.table.code}"


def day_number(coup: Round) -> int:
    """The coup's number within its table's gaming day (1 for the day's first coup)."""
    day = gaming_day_of(coup.opened_at, tz_name=settings.CASINO_TIMEZONE, start=settings.GAMING_DAY_START)
    return floor_cards.day_number(
        coup.number, floor_cards.first_numbers_of_day([coup.table_id], day).get(coup.table_id)
    )


def _signable_by(approval: Approval, user: str) -> bool:
    """Whether ``user`` may sign ``approval`` now (as ``approvals.services`` decides it: a
    dealer only at the table he is assigned to)."""
    if user == approval.maker or any(s.get("by") == user for s in approval.signatures):
        return False
    if outside_scope(approval, user):
        return False
    pending = [s for s in approval.signatures if not s.get("by")]
    if any(s.get("user") == user for s in pending):
        return True
    named = {s.get("user") for s in approval.signatures if s.get("user")}
    return user not in named and any(s.get("user") is None and has_role(user, *s["roles"]) for s in pending)


def _waiting_words(approval: Approval) -> str:
    return "; ".join(s["user"] or " or ".join(r.replace("_", " ") for r in s["roles"]) for s in approval.waiting_for())


def count_prefix(approval_id: object) -> str:
    """The names of the count typed beside an approval's Approve button: ``count-<id>-<cents>``."""
    return f"count-{approval_id}"


def table_dealer(code: str) -> str | None:
    """The dealer assigned to table ``code`` now (the latest assigned), or None."""
    found = assigned_dealers(code)
    return found[0] if found else None


def _row(approval: Approval) -> dict:
    act = ACTS.get(approval.kind)
    return {
        "id": str(approval.id),
        "kind": approval.kind,
        # The signer counts what he signs for (a fill at the table): a count table by his Approve.
        "counted": act is not None and act.counted is not None,
        "count_prefix": count_prefix(approval.id),
        "what": approval_words(approval),
        # A coup's correction or void: its audit trail, for the signer to read before he signs.
        "coup": _coup_of(approval),
        "maker": approval.maker,
        "requested_at": approval.requested_at,
        "expires_at": approval.expires_at,
        "waiting_for": _waiting_words(approval),
        "signed": [s["by"] for s in approval.signatures if s.get("by")],
        # Fields of the row its sealed events did not make (raw SQL): shown, never signable.
        "differs": differences(approval),
    }


def _coup_of(approval: Approval) -> str | None:
    """The coup (its id) an approval is about, when it is about one, else None."""
    round_id = approval.payload.get("round_id") if isinstance(approval.payload, dict) else None
    if not isinstance(round_id, str):
        return None
    try:
        return str(uuid_of(round_id))
    except ValueError:
        return None


def _pending() -> list[Approval]:
    return list(
        Approval.objects.filter(state=Approval.State.PENDING, expires_at__gt=timezone.now()).order_by("requested_at")
    )


def approvals_for(user: str) -> dict:
    """``{"to_sign": [row], "asked": [row], "decided": [row]}``: the pending approvals ``user``
    may sign, those he asked that wait for someone else, and the last ten decided ones he took
    part in. A row: ``{"id", "kind", "what", "maker", "requested_at", "expires_at",
    "waiting_for", "signed"}`` (``decided`` rows add ``state``, ``decided_by``, ``reason``)."""
    pending = _pending()
    to_sign = [_row(a) for a in pending if _signable_by(a, user)]
    asked = [_row(a) for a in pending if a.maker == user]
    decided = []
    for approval in Approval.objects.exclude(state=Approval.State.PENDING).order_by("-decided_at")[:40]:
        if approval.maker == user or approval.decided_by == user:
            decided.append(
                _row(approval) | {"state": approval.state, "decided_by": approval.decided_by, "reason": approval.reason}
            )
        if len(decided) == 10:
            break
    return {"to_sign": to_sign, "asked": asked, "decided": decided}


def table_approvals(code: str) -> list[dict]:
    """The pending approvals about table ``code`` (its opener, closer, slips): ``[row]``."""
    rows = []
    for approval in _pending():
        p = approval.payload
        about = p.get("code") or p.get("table")
        if about is None and approval.kind in ("slip_issue", "slip_void", "slip_reverse"):
            slip = Slip.objects.filter(kind=p.get("kind"), serial=p.get("serial")).select_related("table").first()
            about = slip.table.code if slip else None
        if about == code:
            rows.append(_row(approval))
    return rows


SLIP_STEPS = {
    Slip.State.REQUESTED: "requested, waiting for the cage to prepare it",
    Slip.State.ISSUED: "prepared at the cage, carried by the runner",
    Slip.State.DELIVERED: "accepted at the table",
    Slip.State.VOIDED: "voided",
    Slip.State.REVERSED: "reversed",
}
# A credit travels the other way: the chips leave the table with the runner and are counted in
# at the cage.
CREDIT_STEPS = {
    Slip.State.ISSUED: "slip prepared at the cage; the runner carries the chips to the cage",
    Slip.State.DELIVERED: "received and counted at the cage",
}


def table_slips(code: str) -> list[dict]:
    """Table ``code``'s fills and credits of the gaming day, oldest first: ``[{"kind", "serial",
    "state", "step"`` (in words), ``"amount_cents", "count"`` (in words), ``"requested_by",
    "issued_by", "runner", "accepted_by", "carrying"`` (the runner asked to sign, while the
    cage's issue waits for him), ``"counting"`` (the dealer asked to count and accept it),
    ``"voided_by", "void_approved_by", "void_reason", "reversed_by", "reversal_approved_by"``}]``."""
    slips = Slip.objects.filter(table__code=code, gaming_day=current_gaming_day()).order_by("kind", "number")
    pending = _pending()
    waiting = {
        (a.payload.get("kind"), a.payload.get("serial")): a.payload.get("runner")
        for a in pending
        if a.kind == "slip_issue"
    }
    counting = {
        (a.payload.get("kind"), a.payload.get("serial")): _waiting_words(a) for a in pending if a.kind == "slip_accept"
    }
    rows = []
    for slip in slips:
        carrying = waiting.get((slip.kind, slip.serial))
        dealer = counting.get((slip.kind, slip.serial))
        step = SLIP_STEPS.get(slip.state, slip.state)
        if slip.state == Slip.State.REQUESTED and carrying:
            step = f"prepared at the cage, waiting for the runner {carrying} to sign for it"
        elif slip.kind == Slip.Kind.CREDIT:
            step = CREDIT_STEPS.get(slip.state, step)
        if slip.state == Slip.State.ISSUED and dealer and slip.kind == Slip.Kind.FILL:
            step = f"at the table, waiting for the dealer {dealer} to count and accept it"
        rows.append(
            {
                "kind": slip.kind,
                "serial": slip.serial,
                "state": slip.state,
                "step": step,
                "amount_cents": slip.amount_cents,
                "count": _count_words(slip.denominations),
                "requested_by": slip.requested_by,
                "issued_by": slip.issued_by,
                "runner": slip.runner,
                "accepted_by": slip.accepted_by,
                "voided_by": slip.voided_by,
                "void_approved_by": slip.void_approved_by,
                "void_reason": slip.void_reason,
                "reversed_by": slip.reversed_by,
                "reversal_approved_by": slip.reversal_approved_by,
                "carrying": carrying,
                "counting": dealer,
            }
        )
    return rows


def runner_slips(runner: str) -> dict:
    """``{"to_sign": [{"approval", "kind", "serial", "table", "route" (``slip_route``),
    "amount_cents", "count", "issued_by", "asked_at"}], "carrying": [same without "approval"]}``: the slips the cage
    issued to ``runner`` that wait for his signature, and those he carries (issued, not yet
    accepted at the table)."""
    to_sign = []
    for approval in _pending():
        p = approval.payload
        if approval.kind != "slip_issue" or p.get("runner") != runner:
            continue
        slip = Slip.objects.filter(kind=p.get("kind"), serial=p.get("serial")).select_related("table").first()
        if slip is None:
            continue
        to_sign.append(
            {
                "approval": str(approval.id),
                **_slip_row(slip),
                "issued_by": approval.maker,
                "asked_at": approval.requested_at,
            }
        )
    carrying = [
        _slip_row(slip) | {"issued_by": slip.issued_by}
        for slip in Slip.objects.filter(runner=runner, state=Slip.State.ISSUED).select_related("table")
    ]
    return {"to_sign": to_sign, "carrying": carrying}


def slip_route(kind: str, table: str) -> str:
    """Which way a slip's chips travel, in words: a fill from the cage to its table, a credit
    from its table to the cage."""
    if kind == Slip.Kind.CREDIT:
        return f"From table {table} to the cage"
    return f"From the cage to table {table}"


def _slip_row(slip: Slip) -> dict:
    return {
        "kind": slip.kind,
        "serial": slip.serial,
        "table": slip.table.code,
        "route": slip_route(slip.kind, slip.table.code),
        "amount_cents": slip.amount_cents,
        "count": _count_words(slip.denominations),
    }


def patron_label(code: str) -> str:
    """``"Jeanne Martin (P00012)"``: a patron by name, his code second; the code alone without a name."""
    name = Patron.objects.filter(code=code).values_list("name", flat=True).first()
    return f"{name} ({code})" if name else code


def table_choices() -> dict:
    """The open form's choices: ``{"closed": [{"code", "game", "game_label", "edge"}], "games":
    [{"game", "label", "edge"}], "dealers": [user name]}``; ``edge``: the house edge of the rule
    set the table opens with, in words (``one_table.edge``), shown where it is chosen."""
    return {
        "closed": [
            {"code": t.code, "game": t.game, "game_label": game_name(t.game), "edge": edge(t.game, t.rules)["short"]}
            for t in Table.objects.filter(state=Table.State.CLOSED).order_by("code")
        ],
        "games": [{"game": g, "label": game_name(g), "edge": edge(g, {})["short"]} for g in GAMES],
        "dealers": users_with(Role.DEALER),
    }


def opener_check(code: str, opener: dict | None) -> dict | None:
    """Table ``code``'s last closer beside the opener being counted (``{"<cents>": pieces}`` or
    None), for the pit boss to read before he signs: ``{"table", "closer_cents", "closer_count"``
    (in words), ``"closed_at"`` (UTC), ``"closed_by"`` (the pit boss and dealer who signed it),
    ``"opener_cents"`` (None without a count), ``"difference_cents"`` (opener − closer, None
    without a count)}``; None for a table never closed (its first opening stocks the tray)."""
    table = Table.objects.filter(code=code).first()
    if table is None:
        return None
    last = Event.objects.filter(stream=table.stream, type="TableClosed").order_by("-position").first()
    if last is None:
        return None
    closer = last.data.get("closer_cents")
    opened = _total(opener) if opener else None
    signers = [who for who in (last.data.get("pit_boss"), last.data.get("dealer")) if who]
    return {
        "table": code,
        "closer_cents": closer,
        "closer_count": _count_words(last.data.get("denominations")),
        "closed_at": last.occurred_at,
        "closed_by": " and ".join(signers) or last.actor,
        "opener_cents": opened,
        "difference_cents": opened - closer if opened is not None and isinstance(closer, int) else None,
    }


def closer_check(code: str, closer: dict) -> dict | None:
    """The closer being counted beside the tray by the book, for the pit boss to read before he
    signs (counted first, compared after: the count stays his own): ``{"table", "book_cents",
    "closer_cents", "difference_cents"}`` (closer − book, cents), as ``table_close`` will record
    it (before prison bets the close resolves); None for no such table."""
    table = Table.objects.filter(code=code).first()
    if table is None:
        return None
    book = store.balance(accounts.table_tray(code), table.currency)
    counted = _total(closer)
    return {"table": code, "book_cents": book, "closer_cents": counted, "difference_cents": counted - book}


def table_or_none(code: str) -> Table | None:
    """The table ``code``, or None when the floor has none."""
    return Table.objects.filter(code=code).first()


def table_exists(code: str) -> bool:
    return Table.objects.filter(code=code).exists()


def table_of(code: str) -> Table:
    """The table ``code``; ``NotFound`` (404) when there is none."""
    table = Table.objects.filter(code=code).first()
    if table is None:
        raise NotFound(f"no table {code}", field="table")
    return table


def approval_words_of(approval_id: str) -> str:
    """``approval_words`` of the approval with this id (``""`` when there is none)."""
    found = Approval.objects.filter(id=approval_id).first()
    return approval_words(found) if found is not None else ""


def manual_ratings(code: str) -> list[dict]:
    """The patrons rated by hand at table ``code`` this gaming day, newest first: ``[{"patron",
    "label"`` (name, code second), ``"time_in", "minutes", "average_bet_cents", "buy_in_cents",
    "by", "at"}]``."""
    events = Event.objects.filter(
        stream=f"table/{code}", type="PatronRatedManually", gaming_day=current_gaming_day()
    ).order_by("-position")
    return [
        {
            "patron": e.data["patron"],
            "label": patron_label(e.data["patron"]),
            "time_in": datetime.fromisoformat(e.data["time_in"]),
            "minutes": e.data["minutes"],
            "average_bet_cents": e.data["average_bet_cents"],
            "buy_in_cents": e.data["buy_in_cents"],
            "by": e.actor,
            "at": e.occurred_at,
        }
        for e in events[:20]
    ]


def running_ratings(code: str) -> list[dict]:
    """The patrons being timed at table ``code`` (a rating started, not stopped), oldest first:
    ``[{"patron", "label"`` (name, code second), ``"since"`` (UTC), ``"by"}]``."""
    return [
        {"patron": e.data["patron"], "label": patron_label(e.data["patron"]), "since": e.occurred_at, "by": e.actor}
        for e in games_selectors.running_ratings(code)
    ]


def drop_box(code: str) -> dict:
    """Where table ``code``'s drop box of the gaming day is: ``{"state": "on_table" |
    "left_for_drop_team" | "removed", "words"}``."""
    if box_removal(code, current_gaming_day()) is not None:
        return {"state": "removed", "words": "removed by the drop team, on its way to the count room"}
    closed = Table.objects.filter(code=code, state=Table.State.CLOSED).exists()
    if closed:
        return {"state": "left_for_drop_team", "words": "locked, left on the table for the drop team"}
    return {"state": "on_table", "words": "locked on the table, taking the drop"}


def markers_owed(code: str, limit: int = 50) -> list[dict]:
    """The markers still owed in table ``code``'s drop, newest first, for a payment at the
    table: ``{"serial", "label" (the patron by name), "patron", "amount_cents",
    "outstanding_cents", "where"}``. (A marker at the cage is paid at the cage.)"""
    owed = Marker.objects.filter(state=Marker.State.AT_TABLE, table_code=code).select_related("patron")
    return [
        {
            "serial": m.serial,
            "patron": m.patron.code,
            "label": f"{m.patron.name} ({m.patron.code})" if m.patron.name else m.patron.code,
            "amount_cents": m.amount_cents,
            "outstanding_cents": m.outstanding_cents,
            "where": f"table {m.table_code}",
        }
        for m in owed.order_by("-year", "-number")[:limit]
    ]


def credit_today(code: str) -> list[dict]:
    """This gaming day's marker payments and front money draws at table ``code``, in order:
    ``{"what", "label", "amount_cents", "by", "at"}``."""
    events = Event.objects.filter(
        gaming_day=current_gaming_day(), type__in=["MarkerPaidAtTable", "FrontMoneyDrawn"], data__table=code
    ).order_by("position")
    rows = []
    for e in events:
        paid = e.type == "MarkerPaidAtTable"
        what = f"marker {e.data['serial']} paid in {e.data['method']}" if paid else "front money drawn in chips"
        rows.append(
            {
                "what": what,
                "label": patron_label(e.data["patron"]),
                "amount_cents": e.data["amount_cents"],
                "by": e.actor,
                "at": e.occurred_at,
            }
        )
    return rows


def table_page(code: str, me: str) -> dict:
    """What the table page's forms need beside its live figures, for the pit boss ``me``:
    ``{"limit_fields", "approved_limits"`` (the house's range: ``lowest_cents``, ``highest_cents``),
    ``"denominations", "slips", "waiting", "dealers"`` (who may sign the closer: the table's
    assigned dealers, or every dealer when none is), ``"table_dealer"`` (the one asked by
    default), ``"approvers"`` (the other supervisors who may sign a void), ``"ratings",
    "running"`` (ratings being timed), ``"drop_box", "markers"`` (owed in its drop, for a payment here),
    ``"credit_today"`` (markers paid and front money drawn here today), ``"currency", "me"}``."""
    table = table_of(code)
    assigned = assigned_dealers(code)
    return {
        "limit_fields": limit_fields(table),
        "approved_limits": dict(zip(("lowest_cents", "highest_cents"), approved_range(table.game), strict=True)),
        "denominations": denominations(),
        "slips": table_slips(code),
        "waiting": table_approvals(code),
        "dealers": assigned or users_with(Role.DEALER),
        "table_dealer": assigned[0] if assigned else None,
        "approvers": [u for u in users_with(Role.PIT_BOSS, Role.CAGE_SUPERVISOR) if u != me],
        "ratings": manual_ratings(code),
        "running": running_ratings(code),
        "drop_box": drop_box(code),
        "markers": markers_owed(code),
        "credit_today": credit_today(code),
        "form_key": f"pit-{uuid.uuid4()}",
        "currency": currency(),
        "me": me,
    }
