"""Who may enter a workstation: anonymous → its login page (302), logged in without one of
the workstation's roles → 403, a ``NotFound`` from a selector → 404."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse, reverse_lazy

from dashboard.errors import LandsOnOwnPage
from ledger.errors import NotFound
from staff.roles import Role, has_role, role_names

CAGE_ROLES = (Role.CASHIER, Role.CAGE_SUPERVISOR)
AUDIT_ROLES = (Role.AUDITOR,)
RUNNER_ROLES = (Role.RUNNER,)
COMPLIANCE_ROLES = (Role.COMPLIANCE,)
# The count room: the drop team removes the boxes, the count team counts them; a pit boss of
# another pit may remove one; a pit boss or a cage supervisor witnesses a tips count as its
# manager, and signs it there (``cashier.services.count_room``, ``tronc``).
COUNT_ROOM_ROLES = (Role.DROP_TEAM, Role.COUNT_TEAM, Role.PIT_BOSS, Role.CAGE_SUPERVISOR)


def roles_required(*roles: str, place: str):
    """Decorate a view of the workstation ``place`` ("cage" or "audit") open to ``roles``."""

    def decorate(view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path(), login_url=reverse("workstations:login"))
            if not has_role(request.user, *roles):
                raise PermissionDenied(f"the {place} workstation is for the {role_names(roles, ', ')}")
            try:
                return view(request, *args, **kwargs)
            except NotFound as exc:
                raise Http404(str(exc)) from exc

        return guarded

    return decorate


class Login(LandsOnOwnPage, auth_views.LoginView):
    """One login for the workstations; like the dashboard's, each role lands on its own page
    (a cashier at the cage, an auditor at the audit, a pit boss on the floor, a runner on his)."""

    template_name = "workstations/login.html"
    redirect_authenticated_user = True


class Logout(auth_views.LogoutView):
    next_page = reverse_lazy("workstations:login")
