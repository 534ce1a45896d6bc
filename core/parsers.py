"""Request parsing that refuses what would otherwise crash deeper down (never a 500).

A JSON body is read only up to ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (Django's own bound for
a form or ``request.body``, which Django REST framework's parsers, reading the stream, do not
apply): a larger one is a 413 before it is read whole, by its ``Content-Length`` or as the
bytes come.
"""

import io
import re

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.parsers import JSONParser

# JSON may escape half of a UTF-16 pair alone ("\ud800"): Python reads it as a lone surrogate,
# which is no character at all; UTF-8 cannot encode it, so the database driver would fail.
_SURROGATE = re.compile("[\ud800-\udfff]")
LONE_SURROGATE = "holds half of a UTF-16 surrogate pair alone, which is no character: send text as UTF-8"


def _path(parent: str, key: object) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def _check_strings(value, depth: int = 0, path: str = "") -> None:
    # PostgreSQL text and jsonb cannot hold NUL; nesting this deep is no casino request.
    if depth > 32:
        raise ParseError("JSON nested too deeply")
    if isinstance(value, str):
        if "\x00" in value:
            raise ParseError("NUL characters are not allowed")
        if _SURROGATE.search(value):
            field = path or "body"
            raise ValidationError(
                {field: ["holds half of a UTF-16 surrogate pair alone, which is no character: send text as UTF-8"]}
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, depth + 1, path)
            _check_strings(item, depth + 1, _path(path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_strings(item, depth + 1, _path(path, index))


class RequestTooLarge(APIException):
    """413: a body larger than the API reads (``{"error": "request_too_large", "detail"}``)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"


def body_limit() -> int | None:
    """The largest body read, in bytes (``DATA_UPLOAD_MAX_MEMORY_SIZE``; None: no bound)."""
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def _bounded(stream, parser_context) -> io.BytesIO:
    limit = body_limit()
    if limit is None:
        return stream
    request = (parser_context or {}).get("request")
    meta = getattr(request, "META", {}) if request is not None else {}
    try:
        declared = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    too_large = RequestTooLarge(f"the body is larger than {limit:,} bytes")
    if declared > limit:
        raise too_large
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise too_large
    return io.BytesIO(data)


class SafeJSONParser(JSONParser):
    """JSON of at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (otherwise 413), not absurdly
    nested and without NUL characters (otherwise 400, the body at fault) nor a lone surrogate
    (otherwise 400 naming the field, e.g. ``bets[0].key``)."""

    def parse(self, stream, media_type=None, parser_context=None):
        stream = _bounded(stream, parser_context)
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply") from None
        _check_strings(data)
        return data
