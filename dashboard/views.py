"""The pit boss dashboard's pages: thin views over the dashboard's reads, read-only (his forms,
which write through the services, are ``dashboard.shift_views``).

Every page needs a logged-in user with the pit boss role (the cage summary: a cashier, a cage
supervisor or an auditor, never the pit): anonymous → the login page (302), logged in without
the role → 403. The ``_live`` fragments are what htmx polls to refresh a
page without a reload; they answer the same rules.
"""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import timezone
from django.views.decorators.http import require_safe

from ledger.errors import InvalidInput, NotFound
from ledger.gaming_day import current_gaming_day
from ledger.replica import replica_view
from patrons.selectors import patron_search
from staff.roles import Role, has_role
from staff.selectors import users_with

from . import cage_book, charts, floor_cards, patron_page, table_reads
from .days import asked_gaming_day
from .errors import LandsOnOwnPage, landing
from .shift_selectors import table_page

POLL_SECONDS = 3


def roles_required(roles: tuple[str, ...], denied: str):
    """A page's or a form's guard: anonymous → the dashboard's login page; without one of
    ``roles`` → 403 saying ``denied``; a ``NotFound`` from a selector or a service → 404.
    Pages render in the casino's time zone (``settings.CASINO_TIMEZONE``)."""

    def decorate(view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path(), login_url=reverse("dashboard:login"))
            if not has_role(request.user, *roles):
                raise PermissionDenied(denied)
            try:
                # A person reads times in the casino's zone (the ledger keeps UTC): the templates'
                # date filters convert to the active zone, and the page names it once.
                with timezone.override(ZoneInfo(settings.CASINO_TIMEZONE)):
                    return view(request, *args, **kwargs)
            except NotFound as exc:
                raise Http404(str(exc)) from exc

        return guarded

    return decorate


def pit_boss_required(view):
    """The pit boss's pages: GET and HEAD only (they never write), behind ``roles_required``;
    their reads go to the read replica when one is fit to serve them (``ledger.replica``)."""
    return require_safe(roles_required((Role.PIT_BOSS,), "the dashboard is for the pit boss role")(replica_view(view)))


class Login(LandsOnOwnPage, auth_views.LoginView):
    """The dashboard's login form; like the workstations' one, each role lands on its own page."""

    template_name = "dashboard/login.html"
    redirect_authenticated_user = True


class Logout(auth_views.LogoutView):
    next_page = reverse_lazy("dashboard:login")


def home(request):
    """``/``: a logged-in person's own page (``errors.landing``: the floor, the cage or the audit
    workstation, the runner's page, else the API docs); for an anonymous visitor, a page with
    the two login forms and the API docs."""
    if request.user.is_authenticated:
        return redirect(landing(request.user)["url"])
    return render(request, "dashboard/home.html")


def _floor(request, template: str):
    """The floor, filtered by ``?game=<a game's code>&state=open|closed`` (either may be
    left out or empty); a bad filter is a 400 naming the parameter. The live fragment polls
    with the same query string, so the filter holds across refreshes."""
    try:
        floor = floor_cards.floor(game=request.GET.get("game"), state=request.GET.get("state"))
    except InvalidInput as exc:
        return HttpResponseBadRequest(f"{exc.field}: {exc.message}", content_type="text/plain; charset=utf-8")
    query = {key: value for key, value in floor["filters"].items() if value}
    return render(request, template, {"floor": floor, "poll": POLL_SECONDS, "query": urlencode(query)})


@pit_boss_required
def floor(request):
    return _floor(request, "dashboard/floor.html")


@pit_boss_required
def floor_live(request):
    return _floor(request, "dashboard/_floor_live.html")


def _table_context(code: str) -> dict:
    detail = table_reads.table_detail(code)
    series = detail["win_series"]
    return {
        "detail": detail,
        "card": detail["table"],
        # The chart follows the coups (postings of play); the table's Win also counts the tray's
        # count at the close against its book, and the count room's drop: where they differ, the
        # page says by how much rather than show two wins under one name.
        "chart_win_cents": series[-1][1] if series else 0,
        "chart": charts.win_chart(
            detail["win_series"], table=code, zone=timezone.get_current_timezone(), start=detail["series_start"]
        ),
        "poll": POLL_SECONDS,
    }


@pit_boss_required
def table(request, code: str):
    """The table's live figures and, below them, the pit boss's forms (``shift_views``)."""
    context = _table_context(code) | table_page(code, request.user.get_username())
    return render(request, "dashboard/table.html", context | {"typed": {}, "refused": None})


@pit_boss_required
def table_live(request, code: str):
    return render(request, "dashboard/_table_live.html", _table_context(code))


@pit_boss_required
def coup_audit(request, round_id: str):
    approvers = [u for u in users_with(Role.PIT_BOSS) if u != request.user.get_username()]
    return render(request, "dashboard/audit.html", {"audit": table_reads.coup_audit(round_id), "approvers": approvers})


# Who may open one ledger event's page (``workstations:audit-event``, the audit workstation's
# AUDIT_ROLES; the workstations sit above the dashboard, so the role is named here).
EVENT_PAGE_ROLES = (Role.AUDITOR,)


def patron_context(request, code: str) -> dict:
    """What the patron's page shows: his day (``patron_page.patron_detail``), his comps, and
    whether this viewer may open a ledger event's page."""
    return {
        "detail": patron_page.patron_detail(code),
        "comps": patron_page.patron_comps(code),
        "opens_events": has_role(request.user, *EVENT_PAGE_ROLES),
    }


@pit_boss_required
def patron(request, code: str):
    """A patron's day and his comps; each AML flag links to its ledger event only for a viewer
    who may open it."""
    return render(request, "dashboard/patron.html", patron_context(request, code))


@pit_boss_required
def patron_lookup(request):
    """The header's patron search box: ``?q=`` a code, a name or an identity document (or part
    of one: ``patrons.selectors.patron_search``; ``?code=`` is read the same). One patron found
    (or the code typed exactly) → his page; several → the list, name first, code second; none
    → the same page, 404, saying so."""
    query = (request.GET.get("q") or request.GET.get("code") or "").strip()[:100]
    if not query:
        return redirect("dashboard:floor")
    found = patron_search(query)
    exact = [p for p in found if p.code.casefold() == query.casefold()]
    if len(exact) == 1 or len(found) == 1:
        return redirect("dashboard:patron", code=(exact or found)[0].code)
    matches = sorted(found, key=lambda p: (p.name.casefold(), p.code))
    context = {"query": query, "patron_query": query, "matches": matches}
    return render(request, "dashboard/patron_search.html", context, status=200 if matches else 404)


# SHIFTS.md, the cashier's shift: "the cage's copy is not open to the pit". The cage summary is
# the cage's book (its cash and chips, its windows and their cashiers, who issued each slip):
# read by the cage and the auditor; the pit follows his own slips on his table pages.
CAGE_BOOK_READERS = (Role.CASHIER, Role.CAGE_SUPERVISOR, Role.AUDITOR)


@require_safe
@roles_required(CAGE_BOOK_READERS, "the cage's book is for the cage and the auditor, not the pit")
@replica_view
def cage(request):
    """The cage summary (``selectors.cage_summary``), read-only, with a link back to the reader's own page."""
    day = asked_gaming_day(request)
    context = {
        "cage": cage_book.cage_summary(day=day),
        "today": day == current_gaming_day(),
        "landing": landing(request.user),
    }
    return render(request, "dashboard/cage.html", context)
