"""The OpenAPI description of the API's refusals, in one place.

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
  key); 413 ``Error`` (a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, ``core.parsers``) and 415
  ``Error`` (a body that is not JSON by its ``Content-Type``) there too;
- 406 ``Error`` everywhere (an ``Accept`` header the operation cannot answer), 429 ``Error``
  where a rate limit applies (``core.throttling``), 414 (a URL longer than the server reads,
  refused by the server before Django: a page, text/html) and 500 (an unexpected fault of the
  server, never for anything a client sends: Django's error page, text/html) everywhere;
- beside JSON, every answer of a view with the browsable API comes as ``text/html`` to a
  client whose ``Accept`` asks for it.

A view's own ``@extend_schema(responses={...})`` for one of these codes wins.

``core.schema_view.CachedSchemaView`` serves ``/api/schema/``: the document is generated once per process (and
per version and language asked) — it depends on the code alone — instead of at each call.
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
    "406": "The `Accept` header asks for a media type the operation does not answer in.",
    "413": "The body is larger than the API reads (`API_MAX_BODY_BYTES`, 1 MiB by default).",
    "414": "The URL is longer than the server reads: the server's page (text/html), before the API.",
    "415": "The body's `Content-Type` is not `application/json`.",
    "429": "Over the rate limit: retry after `Retry-After` seconds.",
    "500": "An unexpected fault of the server, never caused by the request: the server's error page (text/html).",
}
# Answers the server gives as a page, not as the API's JSON.
HTML_ONLY = frozenset({"414", "500"})
HTML_PAGE = {"text/html": {"schema": {"type": "string"}}}


def error_statuses(*, method: str, public: bool, names_resource: bool, throttled: bool = True) -> list[str]:
    """The error status codes an operation can answer, by what it takes and does."""
    statuses = ["400", "401"]
    if not public:
        statuses.append("403")
    if names_resource or method in WRITES:
        statuses.append("404")
    statuses.append("406")
    if method in WRITES:
        statuses.extend(["409", "413", "415"])
    statuses.append("414")
    if throttled:
        statuses.append("429")
    statuses.append("500")
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
            throttled=bool(getattr(self.view, "throttle_classes", None)),
        )
        responses = operation.setdefault("responses", {})
        for code in statuses:
            if code in responses:
                continue
            if code in HTML_ONLY:
                responses[code] = {"content": dict(HTML_PAGE), "description": DESCRIPTIONS[code]}
                continue
            serializer = BadRequestSerializer if code == "400" else ErrorSerializer
            response = self._get_response_for_code(serializer, code)
            response["description"] = DESCRIPTIONS[code]
            responses[code] = response
        if self._browsable():
            for response in responses.values():
                content = response.get("content")
                if content and "text/html" not in content:
                    content.update(HTML_PAGE)
        return operation

    def _browsable(self) -> bool:
        """Whether the view answers ``text/html`` when asked (DRF's browsable API)."""
        return any(getattr(r, "media_type", "") == "text/html" for r in getattr(self.view, "renderer_classes", []))
