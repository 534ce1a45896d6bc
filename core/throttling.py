"""Rate limits of the API (issue 25): Django REST framework's throttles, answering 429 with
``Retry-After`` (seconds) and the body ``{"error": "throttled", "detail": ...}``.

Three scopes, their rates in ``settings.API_THROTTLE_RATES`` (``"<n>/<second|minute|hour|day>"``,
or None: no limit), read at each request so a change of settings applies at once:

- ``device``: a device token (``Authorization: Device …``), per device;
- ``user``: a person logged in (session or Basic), per user;
- ``anon``: no login (the health, schema and docs pages), per client address.

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


class AnonymousRateThrottle(_Configured, AnonRateThrottle):
    scope = "anon"
