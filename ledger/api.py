"""Read-only ledger endpoints: the event browser, balances, projection health."""

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from .models import AccountBalance, Event, Posting
from .projections import projection_lag


class PostingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Posting
        fields = ["account", "amount_cents", "currency"]


class EventSerializer(serializers.ModelSerializer):
    postings = PostingSerializer(many=True, read_only=True)

    class Meta:
        model = Event
        fields = [
            "position",
            "stream",
            "version",
            "type",
            "schema_version",
            "data",
            "occurred_at",
            "recorded_at",
            "gaming_day",
            "actor",
            "correlation_id",
            "causation_id",
            "idempotency_key",
            "prev_hash",
            "hash",
            "postings",
        ]


class ByPosition(CursorPagination):
    ordering = "position"
    page_size = 100
    page_size_query_param = "limit"
    max_page_size = 1000

    def decode_cursor(self, request):
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise ValidationError({"cursor": ["invalid cursor: use the next/previous links"]}) from None


class EventFilters(serializers.Serializer):
    stream = serializers.CharField(required=False, max_length=200)
    type = serializers.CharField(required=False, max_length=80)
    gaming_day = serializers.DateField(required=False)
    correlation_id = serializers.CharField(required=False, max_length=64)


@extend_schema(parameters=[EventFilters])
class EventList(generics.ListAPIView):
    """The ledger, in position order, filtered by stream, type, gaming day or correlation id."""

    serializer_class = EventSerializer
    pagination_class = ByPosition

    def get_queryset(self):
        filters = EventFilters(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return Event.objects.filter(**filters.validated_data).prefetch_related(
            Prefetch("postings", queryset=Posting.objects.order_by("id"))
        )


class BalanceSerializer(serializers.ModelSerializer):
    class Meta:
        model = AccountBalance
        fields = ["account", "currency", "balance_cents", "last_position"]


class BalanceList(generics.ListAPIView):
    """Projected account balances (cents); ``?prefix=table:R1:`` narrows them."""

    serializer_class = BalanceSerializer

    def get_queryset(self):
        prefix = self.request.query_params.get("prefix", "")
        return AccountBalance.objects.filter(account__startswith=prefix)


class Health(APIView):
    """Liveness and projection lag (positions behind the ledger head)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: dict})
    def get(self, request):
        lag = projection_lag()
        return Response({"status": "ok", "projections": [lag]})
