"""Who may act where: dealers' table assignments and the devices' table-bound tokens.

Neither model holds money; every change to them is also an event in the ledger (stream
``staff/assignments`` or ``staff/devices``, written by ``staff.services``) with who, what,
before and after, so the ledger alone tells who could act on a table at any time.
"""

from django.conf import settings
from django.db import models


class DealerAssignment(models.Model):
    """A dealer working one table from ``started_at`` until ``ended_at`` (open while null).

    A dealer acts on a table's endpoints only through an open assignment to it
    (``staff.permissions``); a dealer holds at most one open assignment at a time."""

    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    table_code = models.CharField(max_length=20)
    started_at = models.DateTimeField(auto_now_add=True)
    assigned_by = models.CharField(max_length=150)
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.CharField(max_length=150, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["dealer"], condition=models.Q(ended_at__isnull=True), name="one_open_assignment_per_dealer"
            )
        ]
        indexes = [models.Index(fields=["table_code", "ended_at"])]

    def __str__(self) -> str:
        return f"{self.dealer} at {self.table_code}"


class DeviceToken(models.Model):
    """A dealer terminal's or card-reading shoe's API token, bound to one table.

    Only the SHA-256 of the token is stored (``digest``): the token itself is shown once, when
    issued. The device authenticates as its own user (``user``, no password, no role group)
    so every event it causes names it as the actor."""

    class Kind(models.TextChoices):
        TERMINAL = "terminal", "Dealer terminal"
        SHOE = "shoe", "Card-reading shoe"

    name = models.CharField(max_length=60, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    table_code = models.CharField(max_length=20)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="device_token")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8, help_text="first characters of the token, to recognise it")
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.CharField(max_length=150)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.kind}, {self.table_code})"


class PasswordChangeDue(models.Model):
    """An account whose owner must choose a new password before anything else.

    Set when someone else changed the account (a password reset, roles, a reactivation, an
    account created in the admin: ``staff.accounts``); removed when the owner sets his own new
    password (``staff_password_change``). While it exists the pages send him to the password
    page and the API answers 403 (``staff.middleware``, ``staff.permissions``). Both changes are
    ledger events on ``staff/roles``, so the row is what the ledger says, kept for a cheap read."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="password_change_due"
    )
    since = models.DateTimeField(auto_now_add=True)
    reason = models.CharField(max_length=200, help_text="the change that requires it, in words")
    set_by = models.CharField(max_length=150)

    def __str__(self) -> str:
        return f"{self.user} must change his password ({self.reason})"
