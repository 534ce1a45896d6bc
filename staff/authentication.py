"""Device authentication: ``Authorization: Device <token>`` for dealer terminals and shoes;
and HTTP Basic for people, refusing a NUL byte in the credentials.

The token is looked up by its SHA-256 (stored hashed, compared by the database's unique
index on the digest, so no timing leak on the secret itself). A revoked token, or one whose
device user is inactive, fails with 401. The row is then taken only as far as the device's
sealed events (``staff.identity.device_as_recorded``) vouch for it: a device no
``DeviceTokenIssued`` made, one revoked since, or a token digest the event did not record (rows
INSERTed or UPDATEd with raw SQL) fails with 401 too, and the table and kind are the ones the
event named. ``request.auth`` is then the ``DeviceToken`` (its table and kind as recorded), which
``staff.permissions`` uses to confine the device to its table.
"""

from __future__ import annotations

from drf_spectacular.authentication import BasicScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from .identity import device_as_recorded
from .models import DeviceToken
from .services import token_digest

KEYWORD = "Device"


class DeviceTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != KEYWORD.lower().encode():
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("the Device header takes exactly one token")
        try:
            token = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("a device token is ASCII") from None
        stored = token_digest(token)
        device = DeviceToken.objects.select_related("user").filter(digest=stored, revoked_at__isnull=True).first()
        if device is None or not device.user.is_active:
            raise exceptions.AuthenticationFailed("unknown or revoked device token")
        recorded = device_as_recorded(device.name, device.user.get_username(), stored)
        if recorded is None:
            raise exceptions.AuthenticationFailed("unknown or revoked device token")
        # Where it acts is what its events say: a table_code moved with raw SQL moves nothing.
        device.table_code, device.kind = recorded["table"], recorded["kind"]
        return device.user, device

    def authenticate_header(self, request):
        return KEYWORD


class BasicAuthentication(authentication.BasicAuthentication):
    """DRF's HTTP Basic, but credentials holding a NUL byte fail with 401 before any lookup:
    PostgreSQL text cannot hold one, and the login throttle (django-axes) queries the username
    before the backend could refuse it (a 500 otherwise)."""

    def authenticate_credentials(self, userid, password, request=None):
        if "\x00" in userid or "\x00" in password:
            raise exceptions.AuthenticationFailed("Invalid username/password.")
        return super().authenticate_credentials(userid, password, request)


class DeviceTokenScheme(OpenApiAuthenticationExtension):
    """The device header in the OpenAPI schema (drf-spectacular finds it by ``target_class``)."""

    target_class = "staff.authentication.DeviceTokenAuthentication"
    name = "deviceToken"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": "Authorization", "description": "Device <token>"}


class StaffBasicScheme(BasicScheme):
    """Our HTTP Basic in the OpenAPI schema as drf-spectacular shows DRF's (``basicAuth``)."""

    target_class = "staff.authentication.BasicAuthentication"
