"""Pagination with bounds and strict parameters: a huge limit is clamped, a huge offset
refused, and a limit or offset that is not a whole number (``offset=null``, ``limit=abc``,
``limit=-1``, ``limit=٥``) is a 400 naming the parameter, never silently the default."""

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import CursorPagination, LimitOffsetPagination

MAX_OFFSET = 10**9


def query_count(request, name: str, *, minimum: int, default: int | None, maximum: int | None = None) -> int | None:
    """The query parameter ``name`` as a whole number of at least ``minimum`` (ASCII digits
    only), clamped to ``maximum``; ``default`` when the parameter is absent.

    Raises ``ValidationError({name: [...]})`` (400, field ``name``) for anything else.
    """
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        raise ValidationError({name: [f"must be a whole number (at least {minimum})"]})
    value = int(raw)
    if value < minimum:
        raise ValidationError({name: [f"must be at least {minimum}"]})
    return min(value, maximum) if maximum is not None else value


def _with_minimum(parameters: list[dict], minimums: dict[str, int]) -> list[dict]:
    """The paginator's OpenAPI parameters with the least value each takes (the schema says
    what ``query_count`` refuses)."""
    for parameter in parameters:
        if parameter["name"] in minimums:
            parameter["schema"] = {**parameter["schema"], "minimum": minimums[parameter["name"]]}
    return parameters


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    default_limit = 100
    max_limit = 1000

    def get_limit(self, request):
        return query_count(
            request, self.limit_query_param, minimum=1, default=self.default_limit, maximum=self.max_limit
        )

    def get_offset(self, request):
        offset = query_count(request, self.offset_query_param, minimum=0, default=0)
        if offset > MAX_OFFSET:
            raise ValidationError({self.offset_query_param: [f"at most {MAX_OFFSET}"]})
        return offset

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.offset_query_param:
                parameter["schema"] = {**parameter["schema"], "maximum": MAX_OFFSET}
        return _with_minimum(parameters, {self.limit_query_param: 1, self.offset_query_param: 0})


class StrictCursorPagination(CursorPagination):
    """Cursor pagination whose page size (``limit``) is a whole number or a 400."""

    page_size_query_param = "limit"
    max_page_size = 1000

    def get_page_size(self, request):
        return query_count(
            request, self.page_size_query_param, minimum=1, default=self.page_size, maximum=self.max_page_size
        )

    def get_schema_operation_parameters(self, view):
        return _with_minimum(super().get_schema_operation_parameters(view), {self.page_size_query_param: 1})
