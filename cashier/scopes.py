"""The table a fill or credit slip's URL (``/cage/slips/<kind>/<serial>/...``) belongs to, for
``staff``'s permissions (``staff.scopes``)."""

from staff import scopes

from .models import Slip


def _slip_table(kwargs: dict) -> str | None:
    query = Slip.objects.filter(kind=str(kwargs.get("kind")), serial=str(kwargs.get("serial")))
    return query.values_list("table__code", flat=True).first()


def register() -> None:
    scopes.register("slip", _slip_table)
