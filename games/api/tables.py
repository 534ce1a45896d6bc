"""Table endpoints: the list, a table, close, buy-ins (opening and rule changes: approvals/api/makers.py)."""

from rest_framework import generics, serializers

from core.ids import CodeField
from core.views import CentsField, CommandView
from staff.permissions import FLOOR, FLOOR_READERS, TERMINAL_AND_SHOE, roles_allowed

from ..models import Table
from ..services.tables import table_buy_in


class TableSerializer(serializers.ModelSerializer):
    class Meta:
        model = Table
        fields = ["code", "game", "state", "rules", "currency", "version", "rounds_played"]


class TableList(generics.ListAPIView):
    permission_classes = [roles_allowed(read=FLOOR_READERS)]

    queryset = Table.objects.all()
    serializer_class = TableSerializer


class TableDetail(generics.RetrieveAPIView):
    permission_classes = [roles_allowed(read=FLOOR_READERS, table="table", devices=TERMINAL_AND_SHOE)]

    queryset = Table.objects.all()
    serializer_class = TableSerializer
    lookup_field = "code"


class TableBuyIn(CommandView):
    """Cash buy-in at the table: cash to the drop box, value chips from the tray."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        patron = CodeField()
        amount_cents = CentsField(min_value=1)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return table_buy_in(code=code, **data, **ctx)
