"""The OpenAPI description of the API's refusals, in one place (issue 21, fault 8).

``AutoSchema`` (``DEFAULT_SCHEMA_CLASS``) adds to each operation the error answers the API can
give, with the body ``core.errors`` sends, so a new view is described without a line of its
own:

- 400 ``BadRequest`` (``field`` required: the input at fault, ``non_field_errors`` for the
  input as a whole, ``body`` for a body that is not JSON) everywhere: any operation takes a
  query string (``core.middleware`` refuses a NUL in it before any view);
- 401 ``Error`` everywhere (no login, or credentials that are not accepted: those are checked
  even on a public operation); 403 ``Error`` unless the operation is public (``AllowAny``);
- 404 ``Error`` where the path names a resource or the operation writes (a body names patrons,
  tables, slips that may not exist);
- 409 ``Error`` where the operation writes (a state or version conflict, a reused idempotency
  key).

A view's own ``@extend_schema(responses={...})`` for one of these codes wins.
"""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework import serializers
from rest_framework.permissions import AllowAny

WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class ErrorSerializer(serializers.Serializer):
    """Every refusal: a code for programs, a sentence for people."""

    error = serializers.CharField(help_text="machine-readable code, e.g. not_found, state_conflict, invalid")
    detail = serializers.CharField(help_text="what went wrong, for people")
    field = serializers.CharField(required=False, help_text="the input at fault (400 only)")
    errors = serializers.DictField(required=False, help_text="every input at fault: its messages (400 only)")

    class Meta:
        ref_name = "Error"


class BadRequestSerializer(ErrorSerializer):
    """A 400: always names the field at fault."""

    field = serializers.CharField(
        help_text="the input at fault: a body field, a query or path parameter, a header, "
        "'non_field_errors' for the input as a whole, 'body' for a body that is not JSON"
    )

    class Meta:
        ref_name = "BadRequest"


DESCRIPTIONS = {
    "400": "Bad input: `field` names the input at fault.",
    "401": "No login, or credentials that are not accepted.",
    "403": "Logged in, but the role (or the table, for a dealer or a device) does not allow it.",
    "404": "No such resource (an unknown code or id in the path or the body).",
    "409": "A state or version conflict, or an idempotency key reused with another body.",
}


def error_statuses(*, method: str, public: bool, names_resource: bool) -> list[str]:
    """The error status codes an operation can answer, by what it takes and does."""
    statuses = ["400", "401"]
    if not public:
        statuses.append("403")
    if names_resource or method in WRITES:
        statuses.append("404")
    if method in WRITES:
        statuses.append("409")
    return statuses


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's schema plus each operation's error answers (module docstring)."""

    def _is_public(self) -> bool:
        permissions = getattr(self.view, "permission_classes", None) or []
        return bool(permissions) and all(isinstance(p, type) and issubclass(p, AllowAny) for p in permissions)

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        parameters = operation.get("parameters", [])
        statuses = error_statuses(
            method=self.method,
            public=self._is_public(),
            names_resource=any(p.get("in") == "path" for p in parameters),
        )
        responses = operation.setdefault("responses", {})
        for code in statuses:
            if code in responses:
                continue
            serializer = BadRequestSerializer if code == "400" else ErrorSerializer
            response = self._get_response_for_code(serializer, code)
            response["description"] = DESCRIPTIONS[code]
            responses[code] = response
        return operation
