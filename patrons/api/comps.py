"""Comps endpoints: thin shells over ``patrons.services.comps``.

``GET /api/patrons/<code>/comps`` reads what he has earned, been given and has available
(cents) and his comps, newest first. ``POST`` the same path ``{"kind", "amount_cents", "note"}``
gives one (201; 400 on ``amount_cents`` above what he has available).
``POST /api/patrons/<code>/comps/<position>/reverse {"reason"}`` reverses one given in error
(201; 409 a second time).
"""

from rest_framework import serializers
from rest_framework.response import Response

from core.views import CentsField, CommandView, TextField
from staff.permissions import PATRON_READERS, roles_allowed

from ..selectors import patron_get
from ..services.comps import GIVERS, KINDS, MAX_NOTE, comp_balance, comp_give, comp_reverse, comps_given


class PatronComps(CommandView):
    """A patron's comps: GET his balance and list; POST gives one (pit boss, cage supervisor)."""

    permission_classes = [roles_allowed(read=PATRON_READERS, write=set(GIVERS))]

    class Input(serializers.Serializer):
        kind = serializers.ChoiceField(choices=sorted(KINDS))
        amount_cents = CentsField(min_value=1)
        note = TextField(max_length=MAX_NOTE, required=False, allow_blank=True, default="")

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return comp_give(patron=code, **data, **ctx)

    def get(self, request, code):
        patron = patron_get(code).code
        given = [{**c, "occurred_at": c["occurred_at"].isoformat()} for c in comps_given(patron)]
        return Response({**comp_balance(patron), "comps": given})


class PatronCompReverse(CommandView):
    """Reverse a comp given in error, with the reason (pit boss, cage supervisor)."""

    permission_classes = [roles_allowed(write=set(GIVERS))]

    class Input(serializers.Serializer):
        reason = TextField(max_length=MAX_NOTE)

    input_serializer = Input

    def perform(self, data, *, code, position, **ctx):
        return comp_reverse(patron=code, event=position, reason=data["reason"], **ctx)
