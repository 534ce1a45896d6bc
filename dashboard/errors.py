"""The site's pages for a refused request (403) and an unknown page (404), and each role's
landing page (where ``/`` and those pages send a person). API paths keep their JSON answers
(``core.errors``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, reverse

from core.errors import not_found as api_not_found
from staff.roles import Role, has_role

# The first role a person holds, in this order, picks his page: (role(s), URL name, its name).
LANDINGS: tuple[tuple[tuple[str, ...], str, str], ...] = (
    ((Role.PIT_BOSS,), "dashboard:floor", "the floor"),
    ((Role.CASHIER, Role.CAGE_SUPERVISOR), "workstations:cage", "the cage workstation"),
    ((Role.AUDITOR,), "workstations:audit-days", "the audit workstation"),
    ((Role.RUNNER,), "workstations:runner", "the runner's page"),
    ((Role.COMPLIANCE,), "workstations:compliance", "the suspicion cases"),
    ((Role.COUNT_TEAM, Role.DROP_TEAM), "workstations:count-room", "the count room"),
    ((Role.DEALER,), "dashboard:approvals", "the dealer's signatures"),
)


def landing(user) -> dict:
    """``{"url", "name"}`` of ``user``'s own page: the floor for a pit boss, the cage
    workstation for a cashier or cage supervisor, the audit workstation for an auditor, the
    runner's page for a runner, the suspicion cases for a compliance officer, the API
    documentation for anyone else (the dashboard's login page for an anonymous person)."""
    if not user.is_authenticated:
        return {"url": reverse("dashboard:login"), "name": "the login page"}
    for roles, url_name, name in LANDINGS:
        if has_role(user, *roles):
            return {"url": reverse(url_name), "name": name}
    return {"url": reverse("docs"), "name": "the API documentation"}


class LandsOnOwnPage:
    """A login view's mixin: with no safe ``next`` asked for, a person lands on his own page
    (``landing``) whichever login form he used, never on another role's page and its 403."""

    def get_default_redirect_url(self) -> str:
        return landing(self.request.user)["url"]


def _pages(user) -> list[dict]:
    """The pages ``user`` may open, for the error pages' header: ``[{"url", "name"}]``."""
    if not user.is_authenticated:
        return []
    return [
        {"url": reverse(url_name), "name": name.removeprefix("the ").capitalize()}
        for roles, url_name, name in LANDINGS
        if has_role(user, *roles)
    ]


def _words(message: str) -> str:
    """A refusal's message with role values in words (``cage_supervisor`` → ``cage supervisor``)."""
    for role in sorted(Role.values, key=len, reverse=True):
        message = message.replace(role, role.replace("_", " "))
    return message


def _page(request: HttpRequest, status: int, title: str, reason: str) -> HttpResponse:
    context = {"title": title, "reason": reason, "landing": landing(request.user), "pages": _pages(request.user)}
    return render(request, f"{status}.html", context, status=status)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """403: the site's page naming the role the page needs and a link to the person's own page."""
    message = str(exception or "").strip()
    if request.path.startswith("/api/"):
        return JsonResponse({"error": "permission_denied", "detail": message or "permission denied"}, status=403)
    reason = _words(message) if message else "your roles do not open this page"
    return _page(request, 403, "Not allowed", f"{reason[:1].upper()}{reason[1:]}.")


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """404: the site's page saying what was not found (JSON for API paths, ``core.errors``)."""
    if request.path.startswith("/api/"):
        return api_not_found(request, exception)
    reason = f"There is no page at {request.path}."
    if isinstance(exception, Http404) and not isinstance(exception, Resolver404) and exception.args:
        message = str(exception.args[0]).replace("'", "").strip()
        if message:  # what a selector did not find: "no table X9"
            reason = f"{message[:1].upper()}{message[1:]}."
    return _page(request, 404, "Not found", reason)
