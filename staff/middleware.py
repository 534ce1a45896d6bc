"""A person who must choose a new password (``staff.accounts.password_change_due``) does that
first: any page sends him to the password page, any API call with his session is 403 naming
it. HTTP Basic calls are refused by ``staff.permissions`` the same way (DRF authenticates those
inside the view, after this middleware). Logging out, the password page and its API stay open.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import JsonResponse
from django.shortcuts import redirect
from django.urls import reverse

from .accounts import PASSWORD_CHANGE_MESSAGE, password_change_due

# Paths a person with a password to change may still open (prefixes).
OPEN_PATHS = (
    "/accounts/password/",
    "/api/staff/password",
    "/dashboard/logout/",
    "/workstations/logout/",
    "/api/auth/logout/",
    "/admin/logout/",
    "/static/",
    "/api/health/",
    "/metrics",
)


class PasswordChangeRequiredMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and not request.path.startswith(OPEN_PATHS)
            and password_change_due(user)
        ):
            if request.path.startswith("/api/"):
                body = {"error": "password_change_required", "detail": PASSWORD_CHANGE_MESSAGE}
                return JsonResponse(body, status=403)
            return redirect(f"{reverse('staff:password-change')}?{urlencode({'next': request.get_full_path()})}")
        return self.get_response(request)
