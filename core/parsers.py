"""Request parsing that refuses what would otherwise crash deeper down (never a 500)."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def _check_strings(value, depth: int = 0) -> None:
    # PostgreSQL text and jsonb cannot hold NUL; nesting this deep is no casino request.
    if depth > 32:
        raise ParseError("JSON nested too deeply")
    if isinstance(value, str):
        if "\x00" in value:
            raise ParseError("NUL characters are not allowed")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, depth + 1)
            _check_strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item, depth + 1)


class SafeJSONParser(JSONParser):
    """JSON that is not absurdly nested and holds no NUL characters; otherwise 400."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply") from None
        _check_strings(data)
        return data
