"""Shoe endpoints: start, read, close (reveals the order), the bead plate and big road."""

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.views import CommandView
from staff.permissions import FLOOR, FLOOR_READERS, TERMINAL_AND_SHOE, roles_allowed

from ..models import Shoe
from ..services.baccarat import shoe_history
from ..services.shoes import shoe_close, shoe_start


class ShoeSerializer(serializers.ModelSerializer):
    table = serializers.CharField(source="table.code")
    cards_drawn = serializers.SerializerMethodField()

    class Meta:
        model = Shoe
        fields = ["id", "table", "mode", "decks", "state", "commitment", "cut_position", "cards_drawn", "version"]

    def get_cards_drawn(self, shoe) -> int:
        return len(shoe.drawn)


class ShoeDetail(generics.RetrieveAPIView):
    """A shoe; its order and salt are never shown here (``ShoeClosed`` reveals them)."""

    permission_classes = [roles_allowed(read=FLOOR_READERS, table="shoe", devices=TERMINAL_AND_SHOE)]

    queryset = Shoe.objects.select_related("table")
    serializer_class = ShoeSerializer
    lookup_field = "id"


class ShoeStart(CommandView):
    """Put a new shoe in play at a black jack table (``shuffled`` by the backend, or ``reader``)."""

    permission_classes = [roles_allowed(write=FLOOR, table="table")]

    class Input(serializers.Serializer):
        mode = serializers.ChoiceField(choices=Shoe.Mode.choices, default=Shoe.Mode.SHUFFLED)

    input_serializer = Input

    def perform(self, data, *, code, **ctx):
        return shoe_start(table=code, **data, **ctx)


class ShoeClose(CommandView):
    """Close a shoe between coups; its order and salt are revealed in the ledger."""

    permission_classes = [roles_allowed(write=FLOOR, table="shoe")]

    class Input(serializers.Serializer):
        pass

    input_serializer = Input
    success_status = 200

    def perform(self, data, *, shoe_id, **ctx):
        return shoe_close(shoe_id=shoe_id, **ctx)


class ShoeHistory(APIView):
    """A baccarat shoe's history: the bead plate and the big road (sheet 002: B banker, J joueur, - tie)."""

    permission_classes = [roles_allowed(read=FLOOR_READERS, table="shoe", devices=TERMINAL_AND_SHOE)]

    @extend_schema(responses={200: dict})
    def get(self, request, shoe_id):
        return Response(shoe_history(shoe_id))
