"""The patron's self-limit endpoint: a thin shell over ``patrons.services.self_limit``.

``POST /api/patrons/<code>/self-limit {"max_bet_cents": int}`` sets it (201; 409 a second time
in the same week), ``GET`` the same path reads it (404 when he has set none).
"""

from rest_framework import serializers
from rest_framework.response import Response

from core.views import CentsField, CommandSchema, CommandView
from ledger.errors import NotFound
from staff.permissions import PATRON_DESK, PATRON_READERS, roles_allowed

from ..services.self_limit import self_limit_get, self_limit_set


class _SelfLimitSchema(CommandSchema):
    """The Idempotency-Key header belongs to the POST only."""

    def get_override_parameters(self):
        return super().get_override_parameters() if self.method == "POST" else []


class PatronSelfLimit(CommandView):
    """A patron's own maximum bet (responsible gaming): POST sets it, once a week (the week
    starts Friday 00:00 New York); GET reads it with the time from which he may change it."""

    permission_classes = [roles_allowed(read=PATRON_READERS, write=PATRON_DESK)]

    class Input(serializers.Serializer):
        max_bet_cents = CentsField(min_value=1)

    input_serializer = Input
    schema = _SelfLimitSchema()

    def perform(self, data, *, code, **ctx):
        return self_limit_set(patron=code, **data, **ctx)

    def get(self, request, code):
        result = self_limit_get(code)
        if result is None:
            raise NotFound(f"patron {code} has set no self-limit")
        return Response(result)
