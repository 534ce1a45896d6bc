"""Identifiers from the outside world (URLs, request bodies): parsed once, strictly, in ASCII.

``uuid.UUID`` and ``int`` read any Unicode digit ("١" or "１" as 1), and Django's UUID field
looks a row up through them: an id written with look-alike digits would name a real round
while a permission that reads it strictly names nothing. So every id and code is
read here, before any permission or lookup:

- URL paths: the converters of ``core.converters`` (``<id:round_id>``, ``<code:code>``...),
  built on the patterns below; a path that does not match is 404.
- Request bodies: the serializer fields below (``CodeField``, ``UsernameField``, ``IdField``);
  a value that does not match is 400 naming the field.
"""

import re
import uuid

from rest_framework import serializers

# ASCII only: character ranges, never ``\d`` or ``\w`` (which match other scripts' digits).
UUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# Table codes ("R1"), patron codes ("P00001", "anon"), the cage ("main"): letters and digits.
CODE_PATTERN = "[A-Za-z0-9]{1,20}"
# Usernames (people, and devices' "device:<name>"), device names, audit scopes and keys, slip kinds.
NAME_PATTERN = "[A-Za-z0-9][A-Za-z0-9_.@+:-]{0,149}"
# A fill or credit slip's serial: YYYY-NNNNNN.
SERIAL_PATTERN = "[0-9]{4}-[0-9]{6}"
# A gaming day: YYYY-MM-DD (whether it is a real date is the view's to say: 400 naming it).
DAY_PATTERN = "[0-9]{4}-[0-9]{2}-[0-9]{2}"

_UUID = re.compile(UUID_PATTERN)
_CODE = re.compile(CODE_PATTERN)
_NAME = re.compile(NAME_PATTERN)


def uuid_of(value: object) -> uuid.UUID:
    """The UUID written in ``value`` (a ``uuid.UUID``, or its canonical 36-character text in
    ASCII, either case); ``ValueError`` otherwise. ``uuid.UUID`` alone reads any Unicode digit
    ("١" as 1) and braces or a ``urn:uuid:`` prefix, so a look-alike id would name a real round."""
    if isinstance(value, uuid.UUID):
        return value
    text = str(value)
    if not _UUID.fullmatch(text):
        raise ValueError(f"not a UUID: {text[:60]!r}")
    return uuid.UUID(text)


def is_code(value: object) -> bool:
    """Whether ``value`` is a table or patron code: 1 to 20 ASCII letters or digits."""
    return isinstance(value, str) and _CODE.fullmatch(value) is not None


def is_name(value: object) -> bool:
    """Whether ``value`` is a username or device name as the API accepts it (ASCII, 1–150)."""
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


class _Strict(serializers.CharField):
    pattern: re.Pattern
    what: str

    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)  # " R1" is not R1
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise serializers.ValidationError(f"{self.what} is a string")
        value = super().to_internal_value(data)
        if not self.pattern.fullmatch(value):
            raise serializers.ValidationError(f"not {self.what}")
        return value


class CodeField(_Strict):
    """A table or patron code in a request body: 1 to 20 ASCII letters or digits (400 otherwise)."""

    pattern, what = _CODE, "a code (1 to 20 ASCII letters or digits)"

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 20)
        super().__init__(**kwargs)


class UsernameField(_Strict):
    """A username (a dealer, an approver, a counter...) in a request body: ASCII letters, digits
    and ``_.@+:-``, up to 150 (400 otherwise: a look-alike name is nobody)."""

    pattern, what = _NAME, "a username (ASCII letters, digits and _.@+:-)"

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 150)
        super().__init__(**kwargs)


class IdField(serializers.Field):
    """A UUID in a request body, in ASCII (``uuid_of``); the canonical lowercase text."""

    default_error_messages = {"invalid": "not a UUID (ASCII hex digits 8-4-4-4-12)"}

    def to_internal_value(self, data):
        try:
            return str(uuid_of(data)) if isinstance(data, str) else self.fail("invalid")
        except ValueError:
            self.fail("invalid")

    def to_representation(self, value):
        return str(value)
