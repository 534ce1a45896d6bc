"""The maker's endpoints of the acts that need a second signature (maker-checker).

Each answers 202 with ``{"approval": {"id", "waiting_for", ...}}`` when someone else must
sign (the signer confirms with ``POST /api/approvals/<id>/confirm`` from his own session),
or runs the act at once when nobody else has to (a plain opener or a fill under its
threshold): then the act's own answer (201 or 200). The names in a body (``approver``,
``dealer``, ``pit_boss``, ``counters``) say who is to sign; naming someone is not his signature.

- ``POST /api/tables/<code>/open`` (an opener over ``CASINO_LARGE_OPENER_CENTS``: a cage supervisor;
  a rule set giving the house no edge on some bet: another pit boss or a cage supervisor)
- ``POST /api/tables/<code>/rules`` (a rule set giving the house no edge: as above)
- ``POST /api/tables/<code>/opener`` and ``/closer`` (the dealer and the named pit boss; ``dealer``
  left out: the table's assigned dealer; a closer's dealer named must be the table's: 400 naming
  him otherwise; an opener's named dealer is assigned to the table by the opening)
- ``POST /api/tables/<code>/slips`` (a fill over ``CASINO_LARGE_FILL_CENTS``: a cage supervisor)
- ``POST /api/cage/slips/<kind>/<serial>/issue`` (the named runner: he takes the chips or the slip)
- ``POST /api/cage/slips/<kind>/<serial>/void`` (``confirmation``: the word VOID typed; a reason,
  the named approver) and ``/reverse`` (the named approver)
- ``POST /api/rounds/<round_id>/reversal`` (the named approver)
- ``POST /api/rounds/<round_id>/void`` (a reason; after the deal: any other pit boss or cage
  supervisor; before it: at once)
- ``POST /api/tables/<code>/drop-count`` (the named counters) and ``/drop-count-reversal`` (the approver)
- ``POST /api/tables/<code>/drop-removal`` (the two named removers)
- ``POST /api/tronc/counts`` (each named counter and the manager)
- ``POST /api/cage/shifts/open`` (a count off the count handed over by more than
  ``CASINO_VARIANCE_THRESHOLD_CENTS``: any cage supervisor but the cashier; otherwise at once)
- ``POST /api/cage/shifts/close`` (with ``handover_to``: the incoming cashier; without: at once)
- ``POST /api/cage/windows/transfers`` (any cage supervisor but the cashier)
- ``POST /api/markers/<serial>/void`` (a reason; any cage supervisor but the one asking)
- ``POST /api/outages/<id>/forms/<form>/coups`` (a coup written on an outage's paper form, a
  later entry: any other pit boss or cage supervisor) and ``/transactions`` (a chip sale or
  redemption on the cage's form: any other cage supervisor) and ``/slips`` (a fill or credit on a
  table's form, in the names of its paper signers: any cage supervisor but the enterer) and
  ``/buy-ins`` (a cash buy-in on a table's form: any other pit boss or cage supervisor),
  ``/markers`` (a marker on a table's form, in the name of the pit boss who signed it: the same)
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers, status
from rest_framework.response import Response

from cashier.api.accounting import APPROVERS, CAGE, COUNT_ROOM, PIT, Count, GamingDayInput, ShiftCount, Signed
from cashier.api.tronc import TIPS_COUNTERS, TipBox
from cashier.services.cage_shifts import window_cashier
from core.ids import CodeField, UsernameField
from core.views import CentsField, CommandSchema, CommandView, TextField
from games.catalog import game_choices
from staff.permissions import roles_allowed
from staff.roles import Role

from ..acts import ACTS
from ..services import approval_request

PENDING = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description='waiting for a second signature: {"approval": {"id", "state": "pending", "waiting_for", ...}}',
)


class ActSchema(CommandSchema):
    """The act's own answer (201 or 200), or 202 while its approval waits."""

    def get_response_serializers(self):
        return {ACTS[self.view.act].status: OpenApiTypes.OBJECT, 202: PENDING}


class ActView(CommandView):
    """A maker's request for act ``act``: 202 and the pending approval, or the act's answer."""

    act: str
    schema = ActSchema()
    maker: str = ""  # the user asking (set per request, before ``payload``)

    def post(self, request, **kwargs):
        serializer = self.input_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        self.maker = request.user.get_username() or "anonymous"
        result = approval_request(
            kind=self.act,
            payload=self.payload(dict(serializer.validated_data), **kwargs),
            actor=self.maker,
            idempotency_key=request.headers.get("Idempotency-Key") or None,
        )
        pending = result.get("approval", {}).get("state") == "pending"
        return Response(result, status=status.HTTP_202_ACCEPTED if pending else ACTS[self.act].status)

    def payload(self, data: dict, **kwargs) -> dict:
        """The act's arguments from the body and the URL."""
        return data | kwargs


class TableRulesChange(ActView):
    """Change an open table's rule options between coups (a pit boss; event ``TableRulesChanged``
    with the rule set before and after); a rule set giving the house no edge on some bet: 202
    until another pit boss or a cage supervisor confirms."""

    permission_classes = [roles_allowed(write=PIT)]
    act = "table_rules_change"

    class Input(serializers.Serializer):
        rules = serializers.DictField()

    input_serializer = Input


class TableOpenCounted(ActView):
    """Open a table with its opener counted by chip denomination: 202 until the dealer (the one
    named, who is assigned to the table by the opening; none named: the table's assigned dealer)
    and the named pit boss (unless he asks) confirm."""

    permission_classes = [roles_allowed(write=PIT)]
    act = "table_open_counted"

    class Input(serializers.Serializer):
        game = serializers.ChoiceField(choices=game_choices())
        opener = Count()
        dealer = UsernameField(required=False)
        pit_boss = UsernameField()
        rules = serializers.DictField(required=False)

    input_serializer = Input


class TableCloseCounted(ActView):
    """Close a table with its closer counted by chip denomination (the next opener): 202 until
    the table's dealer and the named pit boss confirm (``dealer``: by default the dealer
    assigned to the table; another is 400, naming the table's)."""

    permission_classes = [roles_allowed(write=PIT)]
    act = "table_close_counted"

    class Input(serializers.Serializer):
        closer = Count()
        dealer = UsernameField(required=False)
        pit_boss = UsernameField()

    input_serializer = Input


class SlipRequest(ActView):
    """A pit boss requests a fill or a credit for the table, by chip denomination (a large fill:
    202, a cage supervisor confirms)."""

    permission_classes = [roles_allowed(write=PIT)]
    act = "slip_request"

    class Input(serializers.Serializer):
        # A plain string (the service answers 400 naming ``kind``): an enum here would clash
        # in the OpenAPI components with the patron's ``kind``.
        kind = TextField(max_length=6, help_text="fill | credit")
        denominations = Count()

    input_serializer = Input

    def payload(self, data, *, code):
        return data | {"table": code}


class SlipIssue(ActView):
    """The cage issues the slip to the named runner: 202 until the runner confirms he carries it."""

    permission_classes = [roles_allowed(write=CAGE)]
    act = "slip_issue"

    class Input(serializers.Serializer):
        runner = UsernameField()

    input_serializer = Input


class SlipVoid(ActView):
    """Void a requested or issued slip: the word VOID typed (``confirmation``; 400 on that field
    otherwise), a reason, and the named approver's confirmation. Its pending carrying and
    acceptance are withdrawn with the void."""

    permission_classes = [roles_allowed(write=PIT | CAGE)]
    act = "slip_void"

    class Input(Signed):
        confirmation = TextField(
            max_length=10, required=False, allow_blank=True, default="", help_text="the word VOID, typed"
        )

    input_serializer = Input


class SlipReverse(ActView):
    """Reverse a delivered slip (storno) once the named pit boss or cage supervisor confirms."""

    permission_classes = [roles_allowed(write=PIT | CAGE)]
    act = "slip_reverse"
    input_serializer = Signed


class RoundReverse(ActView):
    """Reverse a settled coup (storno), asked by a pit boss, once the named supervisor confirms."""

    permission_classes = [roles_allowed(write=PIT)]
    act = "round_reverse"
    input_serializer = Signed


class RoundVoid(ActView):
    """Void a coup in play with its ``reason``: every stake goes back. Before the deal (no card
    drawn; at roulette, betting still open) at once (200); after it, 202 until another pit boss
    or a cage supervisor confirms from his own login. 409: settled or voided already, or a void
    of this coup already waiting."""

    permission_classes = [roles_allowed(write=PIT)]
    act = "round_void"

    class Input(serializers.Serializer):
        reason = TextField(max_length=500)

    input_serializer = Input


class DropCount(ActView):
    """The count team enters the counted cash of a drop box, by banknote: 202 until the other
    named counter confirms."""

    permission_classes = [roles_allowed(write=COUNT_ROOM)]
    act = "drop_count"

    class Input(GamingDayInput):
        cash = Count()
        counters = serializers.ListField(child=UsernameField(), min_length=2, max_length=2)

    input_serializer = Input

    def payload(self, data, *, code):
        return data | {"table": code}


class DropCountReversal(ActView):
    """Reverse a mistaken drop count once the named pit boss or cage supervisor confirms."""

    permission_classes = [roles_allowed(write=COUNT_ROOM | APPROVERS)]
    act = "drop_count_reverse"

    class Input(GamingDayInput, Signed):
        pass

    input_serializer = Input

    def payload(self, data, *, code):
        return data | {"table": code}


class DropRemoval(ActView):
    """Record the removal of the table's drop box for a gaming day, by people independent of the
    table's pit shift: ``removers`` names the two who removed it (the user one of them): 202 until
    the other confirms from his own session. Never one person alone (400 without ``removers``)."""

    permission_classes = [roles_allowed(write=PIT | COUNT_ROOM | {Role.DROP_TEAM})]
    act = "drop_box_remove"

    class Input(GamingDayInput):
        removers = serializers.ListField(child=UsernameField(), min_length=2, max_length=2)

    input_serializer = Input

    def payload(self, data, *, code):
        return data | {"table": code}


class TipsCount(ActView):
    """Count a tip box (a table's, or a dealer's toke) into the tronc: two counters or more and a
    manager, the user asking one of them: 202 until every other one confirms from his own session
    (naming a colleague is not his signature). Then ``TipsCounted``: tronc +total."""

    permission_classes = [roles_allowed(write=TIPS_COUNTERS)]
    act = "tips_count"

    class Input(GamingDayInput):
        box = TipBox()
        chips = Count(required=False, default=dict)
        cash = Count(required=False, default=dict)
        counters = serializers.ListField(child=UsernameField(), min_length=2, max_length=20)
        manager = UsernameField()

    input_serializer = Input


class CageShiftOpen(ActView):
    """Open the caller's own cashier window with its imprest counted (cash and chips by
    denomination), moved out of the cage's main bank (201). After a window was handed over to
    him, a count that differs from the count handed over needs ``variance_reason`` (400
    without), and one differing by more than ``CASINO_VARIANCE_THRESHOLD_CENTS``: 202 until a
    cage supervisor other than the caller verifies it from his own session, the window opening
    then."""

    permission_classes = [roles_allowed(write=CAGE)]
    act = "cage_shift_open"

    class Input(ShiftCount):
        variance_reason = TextField(
            max_length=500,
            required=False,
            help_text="why the count differs from the count handed over to the caller, kept on the event",
        )

    input_serializer = Input

    def payload(self, data, **kwargs):
        return data | {"cashier": self.maker}  # his own window: one opening waits at a time per cashier


class CageShiftClose(ActView):
    """Close a cashier window with its drawer counted: the caller's own, or (a cage supervisor)
    ``cashier``'s; the count goes back to the main bank, the variance to over/short. Handed over
    (``handover_to``: the incoming cashier or cage supervisor who counted with her): 202 until
    he confirms from his own session, the window closing then; without it (the end of the
    day) the window closes at once (200)."""

    permission_classes = [roles_allowed(write=CAGE)]
    act = "cage_shift_close"

    class Input(ShiftCount):
        handover_to = UsernameField(required=False, help_text="the incoming cashier, who confirms himself")
        variance_reason = TextField(
            max_length=500, required=False, help_text="why the count differs from the book, kept on the event"
        )
        cashier = UsernameField(required=False, help_text="whose window (default: the caller's own)")
        foreign = serializers.DictField(
            child=CentsField(min_value=0),
            required=False,
            help_text="the foreign banknotes counted, {currency: hundredths}: each currency the drawer holds",
        )

    input_serializer = Input

    def payload(self, data, **kwargs):
        # Whose window it is, named in the request: one close waits for its signature per window.
        return data | {"cashier": window_cashier(self.maker, data.get("cashier"))}


class CageWindowTransfer(ActView):
    """Top up the caller's open window from the cage's main bank (``direction`` ``in``) or return
    its surplus to the main bank (``out``), counted by denomination: 202 until a cage supervisor
    other than the caller confirms from his own session; then the drawer and the main bank move
    by the count (201), the cage's total unchanged. More than the giving side holds: 400 on
    ``cash`` or ``chips``, nothing asked."""

    permission_classes = [roles_allowed(write=CAGE)]
    act = "cage_window_transfer"

    class Input(serializers.Serializer):
        direction = serializers.ChoiceField(
            choices=[("in", "from the main bank to the window"), ("out", "from the window to the main bank")]
        )
        cash = Count(required=False, default=dict)
        chips = Count(required=False, default=dict)

    input_serializer = Input


class PatronPinReset(ActView):
    """Clear a patron's PIN (forgotten, or locked after wrong PINs): 202 until a cage supervisor
    other than the one asking confirms from his own login; then the patron chooses a new one
    (``POST /api/patrons/<code>/pin``, his document shown). No PIN in the request."""

    permission_classes = [roles_allowed(write=CAGE)]
    act = "patron_pin_reset"

    class Input(serializers.Serializer):
        pass

    input_serializer = Input

    def payload(self, data: dict, **kwargs) -> dict:
        return {"patron": kwargs["code"]}


class MarkerVoid(ActView):
    """Void a marker issued in error, with its ``reason`` (400 without): 202 until a cage
    supervisor other than the one asking confirms from his own login; then the issue is reversed
    (``MarkerVoided``, 200). 409: paid, voided already, or payments taken on it."""

    permission_classes = [roles_allowed(write=CAGE)]
    act = "marker_void"

    class Input(serializers.Serializer):
        reason = TextField(max_length=500, required=False, allow_blank=True, default="")

    input_serializer = Input


class PaperCoupEnter(ActView):
    """Enter a roulette coup written on an outage's paper form (a later entry): ``occurred_at``
    (the time on the paper, inside the outage), ``bets`` (each as a single placement takes it),
    ``number``. 202 until another pit boss or cage supervisor approves it from his own login;
    then the coup is recorded through the roulette services, stamped as a later entry."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.CAGE_SUPERVISOR})]
    act = "paper_coup_enter"

    class Input(serializers.Serializer):
        occurred_at = serializers.DateTimeField()
        bets = serializers.ListField(child=serializers.DictField(), max_length=200)
        number = serializers.IntegerField(min_value=0, max_value=36)

    input_serializer = Input


class PaperCageEnter(ActView):
    """Enter a chip sale or redemption written on an outage's cage form (a later entry), in the
    enterer's own window: ``occurred_at``, ``transaction`` (purchase, redemption), ``patron``,
    ``amount_cents``. 202 until another cage supervisor approves it from his own login."""

    permission_classes = [roles_allowed(write={Role.CASHIER, Role.CAGE_SUPERVISOR})]
    act = "paper_cage_enter"

    class Input(serializers.Serializer):
        occurred_at = serializers.DateTimeField()
        transaction = serializers.ChoiceField(choices=["purchase", "redemption"])
        patron = CodeField()
        amount_cents = CentsField(min_value=1)

    input_serializer = Input


class PaperSigners(serializers.Serializer):
    """Who signed each step of the slip on paper (usernames): the service checks each one's role."""

    requested_by = UsernameField()
    issued_by = UsernameField()
    runner = UsernameField()
    accepted_by = UsernameField()
    approved_by = UsernameField(required=False)


class PaperSlipEnter(ActView):
    """Enter a fill or credit written on a table's paper form during an outage (a later entry):
    ``occurred_at`` (the time on the paper, inside the outage), ``kind`` (fill, credit),
    ``denominations`` (``{"<cents>": pieces}``), ``signers`` (``requested_by`` pit boss,
    ``issued_by`` cashier, ``runner``, ``accepted_by`` the dealer or pit boss of a fill, the
    cashier who counted a credit in; ``approved_by``: a large fill's cage supervisor),
    ``amount_cents`` (optional: the total on the paper, which the count must make). 202 until
    a cage supervisor other than the enterer approves it from his own login; then the slip is
    requested, issued and accepted through the slip services, stamped as a later entry."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.CAGE_SUPERVISOR})]
    act = "paper_slip_enter"

    class Input(serializers.Serializer):
        occurred_at = serializers.DateTimeField()
        kind = serializers.ChoiceField(choices=["fill", "credit"])
        denominations = Count()
        signers = PaperSigners()
        amount_cents = CentsField(min_value=1, required=False)

    input_serializer = Input


class PaperBuyInEnter(ActView):
    """Enter a cash buy-in written on a table's paper form during an outage (a later entry):
    ``occurred_at`` (the time on the paper, inside the outage), ``patron``, ``amount_cents`` (the
    cash changed for value chips, into the drop box). 202 until another pit boss or a cage
    supervisor approves it from his own login; then the table's buy-in service records it,
    stamped as a later entry."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.CAGE_SUPERVISOR})]
    act = "paper_buy_in_enter"

    class Input(serializers.Serializer):
        occurred_at = serializers.DateTimeField()
        patron = CodeField()
        amount_cents = CentsField(min_value=1)

    input_serializer = Input


class PaperMarkerEnter(ActView):
    """Enter a marker written on a table's paper form during an outage (a later entry):
    ``occurred_at`` (the time on the paper, inside the outage), ``patron``, ``amount_cents``,
    ``issued_by`` (the pit boss who signed it on paper). 202 until another pit boss or a cage
    supervisor approves it from his own login; then the credit service issues it in the signer's
    name against the patron's credit line, stamped as a later entry."""

    permission_classes = [roles_allowed(write={Role.PIT_BOSS, Role.CAGE_SUPERVISOR})]
    act = "paper_marker_enter"

    class Input(serializers.Serializer):
        occurred_at = serializers.DateTimeField()
        patron = CodeField()
        amount_cents = CentsField(min_value=1)
        issued_by = UsernameField()

    input_serializer = Input
