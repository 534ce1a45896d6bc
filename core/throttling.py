"""Rate limits of the API: Django REST framework's throttles, answering 429 with
``Retry-After`` (seconds) and the body ``{"error": "throttled", "detail": ...}``.

Three scopes, their rates in ``settings.API_THROTTLE_RATES`` (``"<n>/<second|minute|hour|day>"``,
or None: no limit), read at each request so a change of settings applies at once:

- ``device``: a device token (``Authorization: Device …``), per device;
- ``user``: a person logged in (session or Basic), per user;
- ``anon``: no login (the health, schema and docs pages), per client address
  (``client_address``: ``X-Forwarded-For`` is believed only as far as ``NUM_PROXIES`` proxies
  of ours wrote it; a client writes whatever it likes there).

Counts live in Django's default cache (``DJANGO_CACHE_URL``): per process with the default
local-memory cache, so with several gunicorn workers or nodes the limit is per process unless
the cache is shared (Redis, or the database cache; deploy/README.md "Rate limits").
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle


def _is_device(request) -> bool:
    return hasattr(request.auth, "table_code")  # staff.models.DeviceToken (the base cannot import it)


class _Configured:
    """The rate of ``scope`` from ``settings.API_THROTTLE_RATES``, read when asked."""

    scope: str

    def get_rate(self):
        return settings.API_THROTTLE_RATES.get(self.scope)


class DeviceRateThrottle(_Configured, SimpleRateThrottle):
    scope = "device"

    def get_cache_key(self, request, view):
        if not _is_device(request):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}


class PersonRateThrottle(_Configured, SimpleRateThrottle):
    scope = "user"

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated) or _is_device(request):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


def client_address(request) -> str:
    """The client's address: ``REMOTE_ADDR``, or with ``settings.NUM_PROXIES`` = n > 0 (n
    reverse proxies of ours in front, each appending the address it saw to
    ``X-Forwarded-For``) the n-th address from the header's end. Entries to the left of it
    were written by the client and are never read. Also django-axes's address
    (``AXES_CLIENT_IP_CALLABLE``)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = getattr(settings, "NUM_PROXIES", 0) or 0
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0 or not forwarded:
        return remote
    addresses = [address.strip() for address in forwarded.split(",") if address.strip()]
    return addresses[-min(proxies, len(addresses))] if addresses else remote


# No account's name is longer (Django's username); the attempts' table keeps 255 characters.
USERNAME_KEPT = 150


def client_username(request, credentials: dict | None = None) -> str | None:
    """The username a login attempt names, as django-axes counts it (``AXES_USERNAME_CALLABLE``):
    from the credentials (HTTP Basic, a login form's ``authenticate``) or the posted form, cut
    to ``USERNAME_KEPT`` characters and without NUL, so that any name a client sends is counted
    (a 300-character one was a database error: a 500 before any login)."""
    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")
    if credentials:
        name = credentials.get(field)
    else:
        name = getattr(request, "data", request.POST).get(field)
    if not isinstance(name, str):
        return name
    return name.replace("\x00", "")[:USERNAME_KEPT]


class AnonymousRateThrottle(_Configured, AnonRateThrottle):
    scope = "anon"

    def get_ident(self, request) -> str:
        return client_address(request)
