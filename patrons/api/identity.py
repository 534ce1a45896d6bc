"""``POST /api/patrons/<code>/identity``: record a patron's identity (AML), a thin shell over the service."""

from rest_framework import serializers

from core.views import CommandView, TextField
from staff.permissions import roles_allowed
from staff.roles import Role

from ..services.aml import patron_identity_record


class PatronIdentityRecord(CommandView):
    """Record the name and identity document of a patron (cashier or cage supervisor): from then on
    his cash transactions may reach the AML identity threshold. The ledger learns the code only."""

    permission_classes = [roles_allowed(write={Role.CASHIER, Role.CAGE_SUPERVISOR})]

    class Input(serializers.Serializer):
        name = TextField(max_length=200)
        document = TextField(max_length=100)

    input_serializer = Input

    def perform(self, data, *, code, actor, idempotency_key=None):
        return patron_identity_record(patron=code, actor=actor, **data)
