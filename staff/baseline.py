"""Recording, once, the accounts made before accounts were recorded (``manage.py
staff_baseline``): apart from ``staff.services`` because it reads the identity replay
(``staff.identity``), which reads the events those services write."""

from __future__ import annotations

from django.db import transaction

from ledger import store
from ledger.errors import StateConflict
from ledger.models import Event
from ledger.store import NewEvent

from .identity import unrecorded_accounts
from .services import ROLES_STREAM, _append_outside_command, password_digest, profile_digests, user_snapshot


def staff_accounts_baseline(*, actor: str) -> dict:
    """Record, once, each account no identity event created, as it stands: a database whose
    accounts were made before accounts were recorded would otherwise fail ``ledger verify`` on
    every one of them ("(no event)"), and their passwords would go unchecked at login. Event
    ``StaffUserChanged`` ``{"user", "before": None, "after", "baseline": True, "roles",
    "password_digest", "profile_digests"}`` per account, actor ``actor``. An account whose row
    contradicts what an event did state of it (a hash, a role, a flag) is not recorded: a
    baseline never blesses a change made behind the ledger's back, and it runs once: an account
    made behind its back later stays "(no event)". Returns ``{"recorded": [username],
    "refused": {username: [fields]}}``, sorted by username. Raises ``StateConflict`` (409) when
    a baseline was recorded already."""
    recorded = []
    with transaction.atomic():
        store.lock_writers()
        earlier = (
            Event.objects.filter(stream=ROLES_STREAM, type="StaffUserChanged", data__baseline=True)
            .values_list("position", flat=True)
            .first()
        )
        if earlier is not None:
            # Once only: an account no event made after that was made behind the ledger's back.
            raise StateConflict(f"the accounts were recorded as they stood already (event {earlier})")
        may_record, refused = unrecorded_accounts()
        for user in may_record:
            data = {
                "user": user.get_username(),
                "before": None,
                "after": user_snapshot(user),
                "baseline": True,
                "roles": sorted(group.name for group in user.groups.all()),
                "password_digest": password_digest(user),
                "profile_digests": profile_digests(user),
            }
            _append_outside_command(ROLES_STREAM, NewEvent(type="StaffUserChanged", data=data), actor=actor)
            recorded.append(user.get_username())
    return {"recorded": recorded, "refused": refused}
