"""Base class for the API's write endpoints: parse, call one service, return its result.

A subclass names its input serializer and implements ``perform``; the ``Idempotency-Key``
header is passed to the service, and the acting user becomes the events' ``actor``.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger.store import MAX_CENTS

from .schema import AutoSchema


class CentsField(serializers.IntegerField):
    """Money in integer cents: a JSON integer, never a float, a string or a boolean, and at
    most ``MAX_CENTS`` (the ledger's own bound, well inside a 64-bit column)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_value", MAX_CENTS)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if type(data) is not int:
            raise serializers.ValidationError("must be a whole number of cents (a JSON integer)")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer (no "7", no 7.0, no true), bounded like money."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_value", MAX_CENTS)
        kwargs.setdefault("min_value", -MAX_CENTS)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if type(data) is not int:
            raise serializers.ValidationError("must be a JSON integer")
        return super().to_internal_value(data)


class TextField(serializers.CharField):
    """Text typed by a person: a JSON string (DRF's CharField takes -1 or true and stores "-1"
    or "True": a reason that is no reason)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError("must be text (a JSON string)")
        return super().to_internal_value(data)


IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "retrying with the same key appends nothing and returns the first result; a key is the "
        "caller's own (another user's same key is another request)"
    ),
)


class CommandSchema(AutoSchema):
    """OpenAPI for a ``CommandView``: its input serializer in, the service's JSON result out."""

    def get_request_serializer(self):
        return self.view.input_serializer

    def get_response_serializers(self):
        # The status the view answers (201 unless it says otherwise), not drf-spectacular's
        # guess (200 for a POST that is not a generic create view).
        if self.method != "POST":
            return {status.HTTP_200_OK: OpenApiTypes.OBJECT}
        return {getattr(self.view, "success_status", status.HTTP_201_CREATED): OpenApiTypes.OBJECT}

    def get_override_parameters(self):
        return [IDEMPOTENCY_HEADER]


class CommandView(APIView):
    input_serializer: type[serializers.Serializer]
    schema = CommandSchema()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Nested ``Input`` classes would all be one OpenAPI component: name them per view.
        if cls.__dict__.get("input_serializer") is not None and cls.input_serializer.__name__ == "Input":
            cls.input_serializer.__name__ = f"{cls.__name__}Request"

    success_status = status.HTTP_201_CREATED

    def post(self, request, **kwargs):
        serializer = self.input_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        result = self.perform(
            serializer.validated_data,
            actor=request.user.get_username() or "anonymous",
            idempotency_key=request.headers.get("Idempotency-Key") or None,
            **kwargs,
        )
        return Response(result, status=self.success_status)

    def perform(self, data: dict, *, actor: str, idempotency_key: str | None, **kwargs) -> dict:
        raise NotImplementedError
