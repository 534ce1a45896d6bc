"""Correcting a settled coup: a reversing event, never an edit.

``round_reverse`` appends ``RoundReversed`` on the coup's stream: the postings of every event
of that stream (bets placed, settled, commission…) netted per account and turned round, so
the patrons, the tray and the layout are back where they were before the coup; the original
events stay in the ledger and the reversal names them (``reverses``, ``causation_id``). It
needs a pit boss to sign and a pit boss or cage supervisor (another user) to approve.
"""

from collections import defaultdict

from ledger import store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.models import Event
from ledger.store import Leg, NewEvent
from staff.roles import Role, require_distinct, require_role

from ..models import Round
from ..selectors import round_for_update

# A coup that wrote one of these moved stakes into or out of ``table:<T>:prison``.
PRISON_EVENTS = frozenset({"BetImprisoned", "BetStaysInPrison", "BetReleased", "BetLostInPrison"})


def round_reverse(*, round_id: str, reason: str, approver: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Reverse settled coup ``round_id``. Returns ``{"round", "table", "number", "event",
    "reverses", "legs"}`` (``legs``: ``{account: cents}`` the reversal posted).

    Raises ``InvalidInput`` (no reason or approver), ``RoleRequired`` (403: the signer is not a
    pit boss, the approver not a pit boss or cage supervisor, or the same user),
    ``NotFound`` (no such round), ``StateConflict`` (409: not settled, already reversed, played
    on a closed gaming day, or it sent stakes to prison or decided prison bets), ``InsufficientChips`` (a patron
    no longer holds the winnings the reversal takes back).
    """
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("a reversal needs a reason", field="reason")
    if not isinstance(approver, str) or not approver:
        raise InvalidInput("a reversal needs an approver (pit boss or cage supervisor)", field="approver")
    require_role(actor, Role.PIT_BOSS, step="reversing a coup")
    require_role(approver, Role.PIT_BOSS, Role.CAGE_SUPERVISOR, step="approving a coup reversal")
    require_distinct("approving a coup reversal", approver, [("signer", actor)])
    request = {"op": "round_reverse", "round": str(round_id), "reason": reason.strip(), "approver": approver}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = round_for_update(round_id)
        if coup.state != Round.State.SETTLED:
            raise StateConflict(f"coup {coup.number} at {coup.table.code} is {coup.state}, not settled", field="round")
        events = list(Event.objects.filter(stream=coup.stream).order_by("position").prefetch_related("postings"))
        if any(e.type == "RoundReversed" for e in events):
            raise StateConflict(f"coup {coup.number} at {coup.table.code} is already reversed", field="round")
        refuse_if_closed(
            {e.gaming_day for e in events},
            what=f"coup {coup.number} at {coup.table.code} was played on it and stands",
            field="round",
        )
        if any(e.type in PRISON_EVENTS for e in events):
            # The prison account and the bets' states follow later coups too (a release, a
            # loss): taking this coup's postings back would leave them wrong (tests/integration/test_prison_bets.py).
            raise StateConflict(
                f"coup {coup.number} at {coup.table.code} sent stakes to prison or decided prison bets: "
                "it cannot be reversed",
                field="round",
            )
        net: dict[tuple[str, str], int] = defaultdict(int)
        for event in events:
            for posting in event.postings.all():
                net[(posting.account, posting.currency)] += posting.amount_cents
        legs = [Leg(account, -amount, currency) for (account, currency), amount in sorted(net.items()) if amount]
        for leg in legs:
            if leg.account.startswith("patron:") and store.balance(leg.account, leg.currency) < -leg.amount_cents:
                raise InsufficientChips(f"{leg.account} no longer holds the {-leg.amount_cents} cents", field="round")
        reversed_positions = [e.position for e in events if e.postings.all()]
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=coup.version,
            correlation_id=str(coup.id),
            causation_id=str(events[-1].position),
            events=[
                NewEvent(
                    "RoundReversed",
                    {
                        "round": str(coup.id),
                        "table": coup.table.code,
                        "number": coup.number,
                        "reverses": reversed_positions,
                        "reason": reason.strip(),
                        "approved_by": approver,
                    },
                    legs,
                )
            ],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish(
            {
                "round": str(coup.id),
                "table": coup.table.code,
                "number": coup.number,
                "event": event.position,
                "reverses": reversed_positions,
                "legs": {leg.account: leg.amount_cents for leg in legs},
            }
        )
