"""Every login, logout and failed login of a person is an event on ``staff/auth``."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver

from .services import auth_event_record


def _ip(request) -> str | None:
    return request.META.get("REMOTE_ADDR") if request is not None else None


def _channel(request) -> str:
    return "session" if request is not None and request.path.startswith(("/accounts/", "/admin/")) else "api"


@receiver(user_logged_in, dispatch_uid="staff-logged-in")
def _logged_in(sender, request, user, **kwargs):
    auth_event_record(type="StaffLoggedIn", username=user.get_username(), channel=_channel(request), ip=_ip(request))


@receiver(user_logged_out, dispatch_uid="staff-logged-out")
def _logged_out(sender, request, user, **kwargs):
    if user is not None:
        auth_event_record(
            type="StaffLoggedOut", username=user.get_username(), channel=_channel(request), ip=_ip(request)
        )


@receiver(user_login_failed, dispatch_uid="staff-login-failed")
def _login_failed(sender, credentials, request=None, **kwargs):
    # ``credentials`` is already cleansed by Django (the password masked); only the name is kept.
    auth_event_record(
        type="StaffLoginFailed", username=credentials.get("username"), channel=_channel(request), ip=_ip(request)
    )
