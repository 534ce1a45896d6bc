"""Classic five-card stud endpoints: thin shells over ``games.services.classic_stud``.

The coup itself goes through the generic endpoints: open (``tables/<code>/rounds``), close
the bets (``rounds/<id>/close-bets``), deal (``rounds/<id>/deal``), report a card
(``rounds/<id>/cards``) and void (``rounds/<id>/void``). Here: sit down, act, read the hand.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.ids import CodeField
from core.views import CentsField, CommandView, StrictIntegerField
from staff.permissions import FLOOR, FLOOR_READERS, roles_allowed

from ..services.classic_stud import ACTIONS, classic_stud_act, classic_stud_hand, classic_stud_sit


class ClassicStudSit(CommandView):
    """Sit down for the hand at seat 1–7 (seat 1 at the dealer's left) with a stack of value
    chips (table stakes; default: all the patron holds). With antes on, the ante is taken now."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        patron = CodeField()
        seat = StrictIntegerField(min_value=1, max_value=7)
        stack_cents = CentsField(min_value=1, required=False)

    input_serializer = Input

    def perform(self, data, *, round_id, **ctx):
        return classic_stud_sit(round_id=round_id, **data, **ctx)


class ClassicStudAct(CommandView):
    """The player at ``seat`` checks (``check`` / ``parole``), bets ``amount_cents``, calls,
    raises to ``amount_cents`` (his new total for the betting round) or folds."""

    permission_classes = [roles_allowed(write=FLOOR, table="round")]

    class Input(serializers.Serializer):
        seat = StrictIntegerField(min_value=1, max_value=7)
        action = serializers.ChoiceField(choices=list(ACTIONS))
        amount_cents = CentsField(min_value=1, required=False)
        patron = CodeField(required=False)
        expected_version = StrictIntegerField(min_value=0, required=False)

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, round_id, **ctx):
        return classic_stud_act(round_id=round_id, **data, **ctx)


class ClassicStudHand(APIView):
    """The hand as the dealer's terminal shows it: up cards, the decision awaited, the next
    card due, the pots; the hands shown and the settlement once it is over."""

    permission_classes = [roles_allowed(read=FLOOR_READERS, table="round")]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, round_id):
        return Response(classic_stud_hand(round_id=round_id))
