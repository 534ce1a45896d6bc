"""The acts that need a second signature, by kind: who signs, and the service call that runs.

An act names its signature slots from the maker's request (``slots``): a slot naming a user
waits for that user's own confirmation (unless he is the maker: the request is his act);
a slot naming no user waits for anyone holding one of its roles other than the maker.
``run`` calls the one service that does the work, with every signer in his place; it runs
inside the approval's transaction (``ledger.commands.within``) and writes as the maker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from cashier.services.cage_corrections import cage_transaction_reverse
from cashier.services.cage_shifts import (
    CAGE_ROLES,
    cage_shift_close,
    cage_shift_open,
    closing_variance,
    open_windows,
    opening_variance,
    window_book,
    window_of,
)
from cashier.services.cage_transfers import cage_window_transfer
from cashier.services.count_room import REMOVERS, drop_box_remove, drop_count, drop_count_reverse
from cashier.services.credit import marker_void
from cashier.services.outage import (
    paper_buy_in_enter,
    paper_cage_enter,
    paper_coup_enter,
    paper_marker_enter,
    paper_slip_enter,
)
from cashier.services.slips import recorded_slip, slip_accept, slip_issue, slip_request, slip_reverse, slip_void
from cashier.services.tronc import MANAGERS, tips_count
from cashier.slip_models import Slip
from core.denominations import chip_denominations, count_total
from games.models import Table
from games.services.corrections import round_reverse
from games.services.rounds import round_past_the_deal, round_void
from games.services.table_rules import rules_change_without_edge, table_rules_change
from games.services.tables import rules_without_edge, table_close, table_open
from ledger.errors import InvalidInput
from patrons.services.self_limit import patron_pin_reset
from staff.accounts import TEMPORARY_PASSWORD, staff_password_reset, staff_reactivate, staff_roles_set
from staff.roles import ALL_ROLES, TABLE_CREATORS, Role, has_role, require_role
from staff.services import assigned_dealers, assigned_table, dealer_assign, staff_leave

from .selectors import dealer_only

SUPERVISORS = [Role.PIT_BOSS.value, Role.CAGE_SUPERVISOR.value]
TREASURY = [Role.CAGE_SUPERVISOR.value]
ADMINS = [Role.ADMIN.value]


def slot(name: str, roles: list[str], user: object = None) -> dict:
    return {"slot": name, "roles": roles, "user": user}


@dataclass(frozen=True)
class Act:
    kind: str
    what: str  # for people: "reversing a coup"
    status: int  # the HTTP status of the act's success (201: something new; 200: a change)
    slots: Callable[[dict], list[dict]]
    # (payload, maker, {slot: signer}, idempotency key) → the service's result
    run: Callable[..., dict]
    # The payload's keys naming what the act is about (a slip: kind and serial): one pending
    # approval at a time per subject, so a slip cannot be asked to be issued twice.
    subject: tuple[str, ...] = ()
    # Keys of the result given to the last signer only, stored nowhere (a temporary password).
    secret: tuple[str, ...] = ()
    # The maker's payload completed before its slots are read (whom the request goes to when he
    # names nobody: a table's dealer), refusing a signer who could never sign (400).
    addressed: Callable[[dict], dict] | None = None
    # Kinds whose pending approvals about the same subject (``subject``) end when this act runs:
    # a voided slip is neither carried nor accepted any more. ``ended_because``: the reason they
    # are withdrawn with (formatted with the payload).
    ends: tuple[str, ...] = ()
    ended_because: str = ""
    # The last signer counts what he signs for (a dealer the chips of a fill): his confirmation
    # carries ``count`` ({"<cents>": pieces}), given to ``run`` in the payload; the request's
    # trial run takes this stand-in (payload → the count it must be) instead.
    counted: Callable[[dict], dict] | None = None

    def field_of(self, slot_name: str) -> str:
        """The request's field that names the signer of slot ``slot_name`` (400s name it)."""
        for part, field in (("counter", "counters"), ("remover", "removers"), ("incoming", "handover_to")):
            if part in slot_name:
                return field
        return slot_name


def _opener_total(payload: dict) -> int:
    if "opener" in payload:
        return count_total(payload["opener"], chip_denominations(), field="opener")[1]
    return payload["opener_cents"]


def _large_opener(payload: dict) -> list[dict]:
    return [slot("approver", TREASURY)] if _opener_total(payload) > settings.CASINO_LARGE_OPENER_CENTS else []


def _no_edge(payload: dict) -> list[dict]:
    """A rule set giving the house no edge on some bet: a second supervisor signs it."""
    game, rules = payload.get("game"), payload.get("rules")
    if not isinstance(game, str) or not (rules is None or isinstance(rules, dict)):
        return []
    return [slot("edge_approver", SUPERVISORS)] if rules_without_edge(game, rules) else []


def _no_edge_change(payload: dict) -> list[dict]:
    """The rule set an open table's change would leave in force (``_no_edge``)."""
    found = rules_change_without_edge(payload.get("code"), payload.get("rules"))
    return [slot("edge_approver", SUPERVISORS)] if found else []


def _large_fill(payload: dict) -> list[dict]:
    if payload.get("kind") != "fill":
        return []
    total = count_total(payload["denominations"], chip_denominations(), field="denominations")[1]
    return [slot("approver", TREASURY)] if total > settings.CASINO_LARGE_FILL_CENTS else []


def _after_the_deal(payload: dict) -> list[dict]:
    """A coup voided once its cards are out (at roulette, once betting closed): another pit boss
    or a cage supervisor signs (``games.services.rounds.past_the_deal``); before, none."""
    return [slot("approver", SUPERVISORS)] if round_past_the_deal(payload.get("round_id")) else []


def _counters(payload: dict) -> list[dict]:
    """The two named counters of a drop box each sign. Neither may be one of its removers: the
    request's trial run refuses that at once (403, ``count_room.refuse_removers_as_counters``),
    so no approval waits for a count that could never run."""
    counters = payload.get("counters")
    if not isinstance(counters, list) or len(counters) != 2:
        raise InvalidInput("a count names its two counters", field="counters")
    return [
        slot("first_counter", [Role.COUNT_TEAM.value], counters[0]),
        slot("second_counter", [Role.COUNT_TEAM.value], counters[1]),
    ]


def _usernames(payload: dict, field: str) -> list[str]:
    names = payload.get(field)
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise InvalidInput("a list of usernames", field=field)
    return names


def _tips_signers(payload: dict) -> list[dict]:
    """Each counter and the manager of a tips count sign, each from his own session."""
    manager = payload.get("manager")
    if not isinstance(manager, str) or not manager:
        raise InvalidInput("the manager's username", field="manager")
    counters = _usernames(payload, "counters")
    return [
        *(slot(f"counter_{n}", sorted(ALL_ROLES), name) for n, name in enumerate(counters, 1)),
        slot("manager", [str(r) for r in MANAGERS], manager),
    ]


def _tips_run(p: dict, maker: str, s: dict, k: str | None = None) -> dict:
    counters = [s[f"counter_{n}"] for n in range(1, len(p["counters"]) + 1)]
    return tips_count(
        **_without(p, "counters", "manager"), counters=counters, manager=s["manager"], actor=maker, idempotency_key=k
    )


def _removers(payload: dict) -> list[dict]:
    """The two who removed a drop box each sign: never one person alone."""
    removers = _usernames(payload, "removers") if payload.get("removers") is not None else []
    if len(removers) != 2:
        raise InvalidInput("a drop box is removed by two people", field="removers")
    roles = [str(r) for r in REMOVERS]
    return [slot("first_remover", roles, removers[0]), slot("second_remover", roles, removers[1])]


def _removal_run(p: dict, maker: str, s: dict, k: str | None = None) -> dict:
    removers = [s["first_remover"], s["second_remover"]]
    return drop_box_remove(**_without(p, "removers"), removers=removers, actor=maker, idempotency_key=k)


def _incoming(payload: dict) -> list[dict]:
    """A window handed over is signed by the incoming cashier named in ``handover_to``, from his
    own session; none named (the end of the day): the cashier closes alone, at once, unless her
    count is more than the threshold off the window's book: a cage supervisor then verifies it
    from his own session (an incoming cage supervisor's signature is that verification). The
    payload names whose window closes (``cashier``), so that one close waits at a time per window."""
    cashier = payload.get("cashier")
    if payload.get("handover_to") is not None and (not isinstance(cashier, str) or not cashier):
        raise InvalidInput("name the cashier whose window closes", field="cashier")
    slots = []
    if payload.get("handover_to") is not None:
        slots.append(slot("incoming", [str(r) for r in CAGE_ROLES], payload["handover_to"]))
    incoming_verifies = payload.get("handover_to") is not None and has_role(payload["handover_to"], *TREASURY)
    if isinstance(cashier, str) and not incoming_verifies:
        if closing_variance(cashier, payload.get("cash"), payload.get("chips"))["verified"]:
            slots.append(slot("approver", TREASURY))
    return slots


def _drawer_when_asked(payload: dict) -> dict:
    """The close carries the drawer's book as it stood when the count was asked: a sale made
    while the incoming cashier's signature waits leaves the count behind, and the signed close
    is then refused (``cage_shift_close``'s ``drawer_as_counted``) instead of booking the sale
    as a variance."""
    opened = open_windows().get(payload.get("cashier")) if isinstance(payload.get("cashier"), str) else None
    window = window_of(opened) if opened is not None else None
    if window is None:
        return {k: v for k, v in payload.items() if k != "drawer_as_counted"}
    book = window_book(window)
    return payload | {"drawer_as_counted": {"cash_cents": book["cash_cents"], "chips_cents": book["chips_cents"]}}


def _opening_verifier(payload: dict) -> list[dict]:
    """An opening count off the count handed over to the cashier by more than the threshold is
    verified by a cage supervisor other than her, from his own session; any other opens at once
    (a difference without its reason is refused here, before anyone is asked)."""
    cashier = payload.get("cashier")
    if not isinstance(cashier, str) or not cashier:
        raise InvalidInput("name the cashier whose window opens", field="cashier")
    compared = opening_variance(cashier, payload.get("cash"), payload.get("chips"), payload.get("variance_reason"))
    return [slot("approver", TREASURY)] if compared["verified"] else []


def _open_run(p: dict, maker: str, s: dict, k: str | None = None) -> dict:
    if p.get("cashier") != maker:
        raise InvalidInput("a cashier opens her own window", field="cashier")
    return cage_shift_open(**_without(p, "cashier"), approver=s.get("approver"), actor=maker, idempotency_key=k)


def _close_run(p: dict, maker: str, s: dict, k: str | None = None) -> dict:
    return cage_shift_close(
        **_without(p, "handover_to"),
        handover_to=s.get("incoming"),
        approver=s.get("approver"),
        actor=maker,
        idempotency_key=k,
    )


def _open_counted(p: dict, maker: str, s: dict, k: str | None = None) -> dict:
    """The table opens; the dealer who confirmed its opener deals at it from now (his assignment,
    which scopes what he signs: ``approvals.selectors``). A table the floor does not have yet is
    set up by an administrator (``TABLE_CREATORS``, ``TABLE_SET_UP_NEEDS_ADMINISTRATOR``): a pit
    boss opens the tables already there, so a mistyped code never becomes a live table nobody
    set up. ``RoleRequired`` (403) otherwise, at request time (the request's trial run)."""
    if settings.TABLE_SET_UP_NEEDS_ADMINISTRATOR and not Table.objects.filter(code=p["code"]).exists():
        require_role(maker, *TABLE_CREATORS, step=f"setting up a new table {p['code']}")
    opened = table_open(
        **_without(p, "dealer", "pit_boss"),
        dealer=s["dealer"],
        pit_boss=s["pit_boss"],
        approver=s.get("approver"),
        edge_approver=s.get("edge_approver"),
        actor=maker,
        idempotency_key=k,
    )
    if not _assigned_to(s["dealer"], p["code"]):
        dealer_assign(dealer=s["dealer"], table=p["code"], actor=maker)
    return opened


def _assigned_to(dealer: str, code: str) -> bool:
    return assigned_table(dealer) == code


def _dealers_of(code: object) -> list[str]:
    """The dealers the ledger says deal at table ``code`` now (``staff.services.assigned_dealers``)."""
    return assigned_dealers(code) if isinstance(code, str) else []


def _table_dealer(table: object, named: object, what: str) -> object:
    """Whom a dealer's signature at ``table`` is asked of: by default the dealer assigned to it;
    one named must be him (a dealer reads and signs only his own table's requests, so anyone
    else would never see it: ``approvals.selectors``). With nobody assigned the one named
    stands, unless he is a dealer and nothing more (he could never sign). ``InvalidInput`` on
    ``dealer`` saying whom the table's dealer is."""
    assigned = _dealers_of(table)
    if named is None or named == "":
        if assigned:
            return assigned[0]
        raise InvalidInput(f"no dealer is assigned to table {table}: name the dealer who {what}", field="dealer")
    if not isinstance(named, str):
        return named  # the request's own check names it
    if assigned and named not in assigned:
        raise InvalidInput(
            f"{named} is not the dealer of table {table}: its dealer is {' or '.join(assigned)}, who {what}",
            field="dealer",
        )
    if not assigned and dealer_only(named):
        raise InvalidInput(
            f"no dealer is assigned to table {table}, and {named} signs only at the table he deals: "
            "assign him to it first",
            field="dealer",
        )
    return named


def _slip_table(payload: dict) -> str | None:
    """The table of the payload's slip as its sealed events name it (409 on a row changed
    outside the application: ``slips.recorded_slip``); None without such a slip."""
    slip = recorded_slip(payload.get("kind"), payload.get("serial"))
    return slip.table.code if slip is not None else None


def _fill_dealer(payload: dict) -> dict:
    """A fill carried to a table is counted and accepted by that table's dealer. A credit goes
    the other way: it is counted in at the cage (``slip_accept``), never asked of the dealer."""
    if payload.get("kind") == Slip.Kind.CREDIT:
        raise InvalidInput("a credit is counted in at the cage by the cashier, not at the table", field="kind")
    table = _slip_table(payload)
    if table is None:
        return payload  # no such slip: the trial run says so (404)
    return payload | {"dealer": _table_dealer(table, payload.get("dealer"), "counts and accepts the fill")}


def _slip_count(payload: dict) -> dict:
    """The count a fill's acceptance must match: the slip's own, piece for piece."""
    slip = recorded_slip(payload.get("kind"), payload.get("serial"))
    return dict(slip.denominations) if slip is not None else {}


def _closer_dealer(payload: dict) -> dict:
    return payload | {"dealer": _table_dealer(payload.get("code"), payload.get("dealer"), "counts the closer")}


def _opener_dealer(payload: dict) -> dict:
    """The table's assigned dealer when the pit boss names nobody; naming another assigns him
    (``_open_counted``)."""
    if payload.get("dealer") in (None, ""):
        assigned = _dealers_of(payload.get("code"))
        return payload | {"dealer": assigned[0] if assigned else payload.get("dealer", "")}
    return payload


def _admin_signature(payload: dict) -> list[dict]:
    """Another admin signs a change to someone's account (the named one, or any other admin)."""
    return [slot("approver", ADMINS, payload.get("approver"))]


def _account_act(kind: str, what: str, service: Callable[..., dict], *fields: str, secret=()) -> Act:
    return Act(
        kind,
        what,
        200,
        _admin_signature,
        lambda p, maker, s, k=None: service(
            **{name: p[name] for name in fields}, approver=s["approver"], actor=maker, idempotency_key=k
        ),
        subject=("username",),
        secret=secret,
    )


def _entered_now(payload: dict) -> dict:
    """A later entry is stamped with the moment it was entered (the maker's request), which the
    approval keeps; the coup's events take the paper's time and are recorded when approved."""
    return payload | {"entered_at": timezone.now().isoformat()}


def _paper_act(kind: str, what: str, service: Callable[..., dict], approvers) -> Act:
    """A line written on an outage's paper form, entered later through ``service``: the maker
    enters it, one of ``approvers`` (never him) approves it; stamped with the moment asked.
    Who may approve each: a coup, a buy-in or a marker another pit boss or a cage supervisor; a
    cage transaction, a fill or a credit a cage supervisor."""
    return Act(
        kind,
        f"entering {what} written on paper during an outage (a later entry)",
        201,
        lambda p: [slot("approver", approvers)],
        lambda p, maker, s, k=None: service(
            **_without(p, "approver"), approver=s["approver"], actor=maker, idempotency_key=k
        ),
        addressed=_entered_now,
    )


def _without(payload: dict, *names: str) -> dict:
    return {k: v for k, v in payload.items() if k not in names}


def _approved(kind: str, what: str, status: int, service: Callable[..., dict], *fields: str) -> Act:
    """An act a supervisor (pit boss or cage supervisor) signs as ``approver``: the service gets
    the payload's ``fields``, the approver, the maker as actor and the idempotency key."""
    return Act(
        kind,
        what,
        status,
        lambda p: [slot("approver", SUPERVISORS, p["approver"])],
        lambda p, maker, s, k=None: service(
            **{name: p[name] for name in fields}, approver=s["approver"], actor=maker, idempotency_key=k
        ),
    )


ACTS: dict[str, Act] = {
    act.kind: act
    for act in (
        _approved("round_reverse", "reversing a coup", 200, round_reverse, "round_id", "reason"),
        # A coup in play voided: alone before the deal, with any other supervisor's signature after.
        Act(
            "round_void",
            "voiding a coup after the deal",
            200,
            _after_the_deal,
            lambda p, maker, s, k=None: round_void(
                round_id=p["round_id"], reason=p["reason"], approver=s.get("approver"), actor=maker, idempotency_key=k
            ),
            subject=("round_id",),
        ),
        Act(
            "slip_issue",
            "carrying a slip's chips",
            200,
            lambda p: [slot("runner", [Role.RUNNER.value], p["runner"])],
            lambda p, maker, s, k=None: slip_issue(
                kind=p["kind"], serial=p["serial"], runner=s["runner"], actor=maker, idempotency_key=k
            ),
            subject=("kind", "serial"),
        ),
        # SHIFTS.md: the runner's chips are counted by the dealer and accepted at the table: the
        # dealer's own count and signature are the table's, and the acceptance is his (``accepted_by``).
        Act(
            "slip_accept",
            "counting and accepting a slip's chips at the table",
            200,
            lambda p: [slot("dealer", [Role.DEALER.value], p.get("dealer"))],
            lambda p, maker, s, k=None: slip_accept(
                kind=p["kind"], serial=p["serial"], count=p.get("count"), actor=s["dealer"], idempotency_key=k
            ),
            subject=("kind", "serial"),
            addressed=_fill_dealer,
            counted=_slip_count,
        ),
        # A void ends what still waited on the slip: carrying it, accepting it.
        Act(
            "slip_void",
            "voiding a slip",
            200,
            lambda p: [slot("approver", SUPERVISORS, p["approver"])],
            lambda p, maker, s, k=None: slip_void(
                kind=p["kind"],
                serial=p["serial"],
                reason=p["reason"],
                confirmation=p.get("confirmation"),
                approver=s["approver"],
                actor=maker,
                idempotency_key=k,
            ),
            subject=("kind", "serial"),
            ends=("slip_issue", "slip_accept"),
            ended_because="{kind} {serial} was voided",
        ),
        # A window's line corrected: any cage supervisor but the cashier signs, from his own session.
        Act(
            "cage_transaction_reverse",
            "reversing a cage transaction",
            200,
            lambda p: [slot("approver", TREASURY)],
            lambda p, maker, s, k=None: cage_transaction_reverse(
                event=p["event"], reason=p["reason"], approver=s["approver"], actor=maker, idempotency_key=k
            ),
            subject=("event",),
        ),
        _approved("slip_reverse", "reversing a slip", 200, slip_reverse, "kind", "serial", "reason"),
        # A marker issued in error: asked at the cage with its reason, signed by a cage
        # supervisor other than the one asking, from his own login.
        Act(
            "marker_void",
            "voiding a marker",
            200,
            lambda p: [slot("approver", TREASURY)],
            lambda p, maker, s, k=None: marker_void(
                serial=p["serial"], reason=p["reason"], approver=s["approver"], actor=maker, idempotency_key=k
            ),
            subject=("serial",),
        ),
        # A window topped up from the main bank mid-shift, or returning its surplus: counted with
        # the cashier and signed by any cage supervisor but her, from his own session.
        Act(
            "cage_window_transfer",
            "moving cash or chips between the main bank and a cashier window",
            201,
            lambda p: [slot("approver", TREASURY)],
            lambda p, maker, s, k=None: cage_window_transfer(
                **_without(p, "approver"), approver=s["approver"], actor=maker, idempotency_key=k
            ),
        ),
        # A patron's PIN cleared (forgotten, or locked by wrong PINs): asked at the cage, signed
        # by a cage supervisor other than the one who asked; the patron then chooses a new one.
        Act(
            "patron_pin_reset",
            "resetting a patron's PIN",
            200,
            lambda p: [slot("approver", TREASURY)],
            lambda p, maker, s, k=None: patron_pin_reset(
                patron=p["patron"], approver=s["approver"], actor=maker, idempotency_key=k
            ),
            subject=("patron",),
        ),
        # SHIFTS.md: the window is counted and signed with the incoming cashier; the close is
        # recorded with him as ``handover_to`` only once he confirmed it himself.
        # SHIFTS.md: a variance of the imprest count over the threshold is explained and verified
        # by a supervisor; the window opens when he signs.
        Act(
            "cage_shift_open",
            "opening a cashier window with a count off the count handed over",
            201,
            _opening_verifier,
            _open_run,
            subject=("cashier",),
        ),
        Act(
            "cage_shift_close",
            "closing a cashier window and handing it over",
            200,
            _incoming,
            _close_run,
            subject=("cashier",),
            addressed=_drawer_when_asked,
        ),
        _approved(
            "drop_count_reverse", "reversing a drop count", 201, drop_count_reverse, "table", "gaming_day", "reason"
        ),
        Act(
            "drop_count",
            "counting a drop box",
            201,
            _counters,
            lambda p, maker, s, k=None: drop_count(
                **_without(p, "counters"),
                counters=[s["first_counter"], s["second_counter"]],
                actor=maker,
                idempotency_key=k,
            ),
            subject=("table", "gaming_day"),
        ),
        Act(
            "table_open_counted",
            "opening a table with a counted opener",
            201,
            lambda p: [
                slot("dealer", [Role.DEALER.value], p["dealer"]),
                slot("pit_boss", [Role.PIT_BOSS.value], p["pit_boss"]),
                *_large_opener(p),
                *_no_edge(p),
            ],
            _open_counted,
            addressed=_opener_dealer,
        ),
        Act(
            "table_close_counted",
            "closing a table with a counted closer",
            200,
            lambda p: [
                slot("dealer", [Role.DEALER.value], p["dealer"]),
                slot("pit_boss", [Role.PIT_BOSS.value], p["pit_boss"]),
            ],
            lambda p, maker, s, k=None: table_close(
                **_without(p, "dealer", "pit_boss"),
                dealer=s["dealer"],
                pit_boss=s["pit_boss"],
                actor=maker,
                idempotency_key=k,
            ),
            addressed=_closer_dealer,
        ),
        Act(
            "table_rules_change",
            "changing a table's rules to a rule set without a house edge",
            200,
            _no_edge_change,
            lambda p, maker, s, k=None: table_rules_change(
                **p, edge_approver=s.get("edge_approver"), actor=maker, idempotency_key=k
            ),
        ),
        Act("tips_count", "counting a tip box into the tronc", 201, _tips_signers, _tips_run, ("box", "gaming_day")),
        Act("drop_box_remove", "removing a drop box", 201, _removers, _removal_run, ("table", "gaming_day")),
        _account_act(
            "staff_password_reset",
            "resetting a password",
            staff_password_reset,
            "username",
            secret=(TEMPORARY_PASSWORD,),
        ),
        _account_act("staff_roles_set", "changing roles", staff_roles_set, "username", "roles"),
        _account_act("staff_reactivate", "reactivating an account", staff_reactivate, "username"),
        _account_act("staff_leave", "deactivating a leaver's account", staff_leave, "username", "reason"),
        # What was written on paper during an outage, entered after recovery: a later entry that
        # a second person approves from his own login before it is recorded (``_paper_act``).
        _paper_act("paper_coup_enter", "a coup", paper_coup_enter, SUPERVISORS),
        _paper_act("paper_cage_enter", "a cage transaction", paper_cage_enter, TREASURY),
        _paper_act("paper_slip_enter", "a fill or credit", paper_slip_enter, TREASURY),
        _paper_act("paper_buy_in_enter", "a cash buy-in", paper_buy_in_enter, SUPERVISORS),
        _paper_act("paper_marker_enter", "a marker", paper_marker_enter, SUPERVISORS),
        Act(
            "slip_request",
            "requesting a large fill",
            201,
            _large_fill,
            lambda p, maker, s, k=None: slip_request(**p, approver=s.get("approver"), actor=maker, idempotency_key=k),
        ),
    )
}
