"""Request parsing that refuses what would otherwise crash deeper down (never a 500)."""

import re

from rest_framework.exceptions import ParseError, ValidationError
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


class SafeJSONParser(JSONParser):
    """JSON that is not absurdly nested and holds no NUL characters (otherwise 400, the body at
    fault) and no lone surrogate (otherwise 400 naming the field, e.g. ``bets[0].key``)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply") from None
        _check_strings(data)
        return data
