"""The tronc page of the cage workstation: the cage supervisor shares the tips pool out to the
staff by points (``cashier.services.tronc.tronc_share``, as the logged-in supervisor); a
cashier reads it.

The form lists every employee who may share, ticked, with the scheme's points typed in; the
supervisor unticks who is not in this share-out and changes a person's points. A refusal
renders the page again with what was typed and the reason; the form carries its idempotency
key, so a form sent twice shares the pool once."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe

from cashier.services.tronc import SHARE_OUT, tronc_share
from ledger.commands import replays_noted
from ledger.errors import DomainError, InvalidInput
from staff.roles import has_role

from . import tronc_selectors
from .access import CAGE_ROLES, roles_required
from .templatetags.workstation_tags import eur

cage_only = roles_required(*CAGE_ROLES, place="cage")
supervisor_only = roles_required(*SHARE_OUT, place="cage's tronc share-out")


def _page(request, *, status: int = 200, typed: dict | None = None, error: str = ""):
    """The page; ``typed``: the refused form's ticks and points, shown again as typed."""
    page = tronc_selectors.tronc_page()
    for row in page["staff"]:
        row["ticked"] = typed is None or row["username"] in typed["share"]
        row["shown_points"] = row["points"] if typed is None else typed["points"].get(row["username"], "")
    context = {
        "tronc": page,
        "shares_out": has_role(request.user, *SHARE_OUT),
        "key": f"tronc-{uuid.uuid4()}",
        "typed": typed,
        "error": error,
    }
    return render(request, "workstations/tronc.html", context, status=status)


@require_safe
@cage_only
def tronc(request):
    return _page(request)


def _staff_lines(post) -> list[dict]:
    """``[{"username", "points"}]`` of the ticked rows (``share`` values), their points typed
    in ``points-<username>``; ``InvalidInput`` (field ``staff``) for points not a whole number."""
    lines = []
    for name in post.getlist("share"):
        raw = (post.get(f"points-{name}") or "").strip()
        if not raw.isascii() or not raw.isdigit() or len(raw) > 4:
            raise InvalidInput(f"points of {name}: a whole number from 0 to 1000", field="staff")
        lines.append({"username": name, "points": int(raw)})
    if not lines:
        raise InvalidInput("tick the staff who share the pool", field="staff")
    return lines


@require_POST
@supervisor_only
def share(request):
    key = (request.POST.get("idempotency_key") or "").strip() or None
    try:
        lines = _staff_lines(request.POST)
        with replays_noted() as replayed:
            result = tronc_share(staff=lines, actor=request.user.get_username(), idempotency_key=key)
    except DomainError as exc:
        typed = {
            "share": set(request.POST.getlist("share")),
            "points": {k.removeprefix("points-"): v for k, v in request.POST.items() if k.startswith("points-")},
        }
        return _page(request, status=exc.status, typed=typed, error=exc.message)
    if key is not None and key in replayed:
        messages.info(request, "Already recorded: this share-out was sent more than once; it counts once.")
    else:
        messages.success(
            request,
            f"Tronc shared out: {eur(result['shared_cents'])} to {len(result['shares'])} people, "
            f"{eur(result['carried_cents'])} carried to the next share-out.",
        )
    return redirect("workstations:cage-tronc")
