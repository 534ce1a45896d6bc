"""The account-balance projection (DESIGN.md §Projections).

The checkpoint row is locked and advanced in the same transaction as the balance rows, so
a catch-up delivered twice, or run by two workers at once, applies each event once (C18).
Because appends are serialised (``ledger.store``), every position up to the head is already
committed when the projector reads it: no late commit can be skipped (C16).
"""

from django.db import transaction
from django.db.models import Max, Sum

from .models import AccountBalance, Event, Posting, ProjectionCheckpoint

BALANCES = "balances"
BATCH = 5000


def catch_up_balances(batch: int = BATCH) -> int:
    """Apply every committed event after the checkpoint; returns how many events were applied."""
    applied = 0
    while True:
        with transaction.atomic():
            checkpoint, _ = ProjectionCheckpoint.objects.select_for_update().get_or_create(name=BALANCES)
            # Positions are gap-free, so this range holds exactly min(batch, lag) events.
            head = Event.objects.aggregate(p=Max("position"))["p"] or 0
            upto = min(head, checkpoint.position + batch)
            if upto <= checkpoint.position:
                return applied
            sums = (
                Posting.objects.filter(event_id__gt=checkpoint.position, event_id__lte=upto)
                .values("account", "currency")
                .annotate(total=Sum("amount_cents"))
            )
            for row in sums:
                balance, _ = AccountBalance.objects.select_for_update().get_or_create(
                    account=row["account"], currency=row["currency"]
                )
                balance.balance_cents += row["total"]
                balance.last_position = upto
                balance.save(update_fields=["balance_cents", "last_position"])
            applied += upto - checkpoint.position
            checkpoint.position = upto
            checkpoint.save(update_fields=["position"])


def rebuild_balances() -> int:
    """Drop the projection and replay it from position 0; returns the events applied."""
    with transaction.atomic():
        checkpoint, _ = ProjectionCheckpoint.objects.select_for_update().get_or_create(name=BALANCES)
        AccountBalance.objects.all().delete()
        checkpoint.position = 0
        checkpoint.save(update_fields=["position"])
        return catch_up_balances()


def projection_lag(name: str = BALANCES) -> dict:
    """``{"projection", "checkpoint", "head", "lag"}``: positions the projector is behind the head."""
    head = Event.objects.aggregate(p=Max("position"))["p"] or 0
    checkpoint = ProjectionCheckpoint.objects.filter(name=name).values_list("position", flat=True).first() or 0
    return {"projection": name, "checkpoint": checkpoint, "head": head, "lag": head - checkpoint}
