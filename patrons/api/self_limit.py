"""The patron's self-limit and PIN endpoints: thin shells over ``patrons.services.self_limit``.

``POST /api/patrons/<code>/self-limit {"max_bet_cents": int, "pin": "1234"}`` changes it (201:
a reduction at once, a raise pending until the next Friday 00:00 GMT-5; 409 a second time in
the same week; 400 on ``pin`` for a wrong or locked PIN), ``GET`` the same path reads it (404
when he has set none). ``POST /api/patrons/<code>/pin {"pin", "document"}`` sets his PIN at
the cage, the document he shows typed in. The PIN is write-only: never in an answer.
"""

from rest_framework import serializers
from rest_framework.response import Response

from core.views import CentsField, CommandSchema, CommandView, TextField
from ledger.errors import NotFound
from staff.permissions import PATRON_DESK, PATRON_READERS, roles_allowed
from staff.roles import Role

from ..services.self_limit import patron_pin_set, self_limit_get, self_limit_set


class _SelfLimitSchema(CommandSchema):
    """The Idempotency-Key header belongs to the POST only."""

    def get_override_parameters(self):
        return super().get_override_parameters() if self.method == "POST" else []


class PatronSelfLimit(CommandView):
    """A patron's own maximum bet (responsible gaming): POST changes it with his PIN, once a
    week (the week starts Friday 00:00 GMT-5; a raise waits for that reset); GET reads it, with
    a pending raise and the time from which he may change it."""

    permission_classes = [roles_allowed(read=PATRON_READERS, write=PATRON_DESK)]

    class Input(serializers.Serializer):
        max_bet_cents = CentsField(min_value=1)
        pin = TextField(write_only=True, trim_whitespace=False, max_length=8, style={"input_type": "password"})

    input_serializer = Input
    schema = _SelfLimitSchema()

    def perform(self, data, *, code, **ctx):
        return self_limit_set(patron=code, **data, **ctx)

    def get(self, request, code):
        result = self_limit_get(code)
        if result is None:
            raise NotFound(f"patron {code} has set no self-limit")
        return Response(result)


class PatronPinSet(CommandView):
    """Set a patron's PIN at the cage, his identity document shown (cashier or cage supervisor)."""

    permission_classes = [roles_allowed(write={Role.CASHIER, Role.CAGE_SUPERVISOR})]

    class Input(serializers.Serializer):
        pin = TextField(write_only=True, trim_whitespace=False, max_length=8, style={"input_type": "password"})
        document = TextField(max_length=100, help_text="the number on the document the patron shows")

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return patron_pin_set(patron=code, **data, **ctx)
