"""A pending second signature (maker-checker): the act a maker asked for, waiting for others.

Each row mirrors the ledger stream ``approval/<id>`` (``ApprovalRequested``, ``ApprovalSigned``,
``ApprovalConfirmed``, ``ApprovalRejected``, ``ApprovalWithdrawn``, ``ApprovalExpired``), written
only by ``approvals.services``.
"""

import uuid

from django.db import models


class Approval(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        CONFIRMED = "confirmed", "Confirmed (the act ran)"
        REJECTED = "rejected", "Rejected"
        # By its maker, or because the act it waited for lost its object (a voided slip's acceptance).
        WITHDRAWN = "withdrawn", "Withdrawn"
        EXPIRED = "expired", "Expired"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=40, help_text="the act (approvals.acts.ACTS)")
    payload = models.JSONField(help_text="the act's arguments as the maker sent them")
    maker = models.CharField(max_length=150)
    # [{"slot", "roles": [...], "user": <named signer or null: anyone with a role>, "by", "at"}]
    signatures = models.JSONField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    requested_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    decided_by = models.CharField(max_length=150, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=500, blank=True, help_text="why it was rejected or withdrawn")
    result = models.JSONField(null=True, blank=True, help_text="the act's result once confirmed")
    version = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-requested_at"]
        indexes = [models.Index(fields=["state", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.kind} by {self.maker} ({self.state})"

    @property
    def stream(self) -> str:
        return f"approval/{self.id}"

    def waiting_for(self) -> list[dict]:
        """The signatures still missing: ``[{"slot", "roles", "user"}]``."""
        return [{k: s[k] for k in ("slot", "roles", "user")} for s in self.signatures if not s.get("by")]
