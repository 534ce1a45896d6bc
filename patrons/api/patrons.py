"""Patron registry endpoints: the list, a patron, registration."""

from rest_framework import generics, serializers

from core.views import CommandView, TextField
from ledger import accounts, store
from staff.permissions import PATRON_DESK, PATRON_READERS, roles_allowed

from ..models import Patron
from ..services.patrons import patron_register


class PatronSerializer(serializers.ModelSerializer):
    chips_cents = serializers.SerializerMethodField()

    class Meta:
        model = Patron
        fields = ["code", "kind", "created_at", "chips_cents"]

    def get_chips_cents(self, patron) -> int:
        return store.balance(accounts.patron_chips(patron.code))


class PatronList(generics.ListAPIView):
    """Patrons (no identity data in this view) with their value chips in cents."""

    permission_classes = [roles_allowed(read=PATRON_READERS)]

    queryset = Patron.objects.all()
    serializer_class = PatronSerializer


class PatronDetail(generics.RetrieveAPIView):
    permission_classes = [roles_allowed(read=PATRON_READERS)]

    queryset = Patron.objects.all()
    serializer_class = PatronSerializer
    lookup_field = "code"


class PatronRegister(CommandView):
    permission_classes = [roles_allowed(write=PATRON_DESK)]

    class Input(serializers.Serializer):
        kind = serializers.ChoiceField(choices=Patron.Kind.choices)
        name = TextField(required=False, allow_blank=True, max_length=200, default="")
        document = TextField(required=False, allow_blank=True, max_length=100, default="")

    input_serializer = Input

    def perform(self, data, **ctx):
        return patron_register(**data, **ctx)
