"""What each step of a suspicion case says, kept beside the ledger, never in it.

A suspicion case must not reach the people who deal with the patron (tipping-off: 31 CFR
1021.320(e) for a SAR-C, CMF L561-18 for a TRACFIN déclaration de soupçon), yet the ledger's
events are read by the cage, the pit and the count room (``staff.permissions.LEDGER_READERS``).
So each step's event carries the case's reference and a keyed digest of what the step says
(``ledger.identity.digest``); the words themselves (patron, reasons, findings, the transactions
attached, the filing's reference) are this row's, read by the compliance role only, and a row
that no longer matches its event's digest is shown as differing from the ledger.
"""

from django.db import models


class CaseRecord(models.Model):
    """One step of a suspicion case: ``event`` is its ledger position (one row per event),
    ``content`` the JSON its event's ``content_digest`` was made of."""

    event = models.BigIntegerField(unique=True, help_text="ledger position of the step's event")
    case = models.CharField(max_length=20, db_index=True, help_text="the case's reference, e.g. SC00001")
    content = models.JSONField()

    class Meta:
        ordering = ["event"]

    def __str__(self) -> str:
        return f"{self.case} step at {self.event}"
