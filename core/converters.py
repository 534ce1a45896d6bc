"""Path converters: every id and code in a URL is read strictly, in ASCII, before any
permission or lookup (``core.ids``). A path whose id does not match is 404, like any unknown
URL: ``/api/shoes/<an id in Arabic-Indic digits>/close`` names nothing.

Importing this module registers them (once per process): ``<id:round_id>`` (a UUID, either
case, passed on in canonical lowercase), ``<code:code>`` (a table or patron), ``<name:username>``
(a user, a device, an audit scope or key, a slip kind), ``<serial:serial>``, ``<day:day>``,
``<pos:position>`` (a whole number from 1).
The OpenAPI schema shows each one's pattern (drf-spectacular reads the converter's ``regex``).
"""

import uuid

from django.urls import register_converter

from . import ids


class _Text:
    regex: str

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value) -> str:
        return str(value)


class IdConverter(_Text):
    regex = ids.UUID_PATTERN

    def to_python(self, value: str) -> str:
        return str(uuid.UUID(value))  # the pattern admits only ASCII hex: canonical lowercase


class CodeConverter(_Text):
    regex = ids.CODE_PATTERN


class NameConverter(_Text):
    regex = ids.NAME_PATTERN


class SerialConverter(_Text):
    regex = ids.SERIAL_PATTERN


class DayConverter(_Text):
    regex = ids.DAY_PATTERN


class PositionConverter(_Text):
    """A ledger position or event number: 1 to 19 ASCII digits (Django's ``int`` would take
    20 digits past PostgreSQL's bigint), passed on as an ``int``."""

    regex = "[1-9][0-9]{0,17}"

    def to_python(self, value: str) -> int:
        return int(value)


for _converter, _name in (
    (IdConverter, "id"),
    (CodeConverter, "code"),
    (NameConverter, "name"),
    (SerialConverter, "serial"),
    (DayConverter, "day"),
    (PositionConverter, "pos"),
):
    register_converter(_converter, _name)
