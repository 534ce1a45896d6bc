"""DRF permissions by role (403 for a logged-in user without the role, 401 when anonymous;
403 naming the password page for a person who must choose a new password first).

Usage on a view::

    permission_classes = [roles_allowed(read=STAFF_ROLES, write={Role.CASHIER})]
    permission_classes = [roles_allowed(read=FLOOR_READERS, write=FLOOR, table="round")]

``read`` applies to safe methods (GET, HEAD, OPTIONS), ``write`` to the others.

``table`` names how the view's URL identifies a gaming table (``"table"``: ``<code>``;
``"round"``, ``"shoe"``, ``"bet"``: the object's id; ``"slip"``: ``<kind>/<serial>``). On such a view:
- a user whose only role that the view allows is *dealer* acts only on the table he is
  assigned to right now (``staff.models.DealerAssignment``);
- a device (``Authorization: Device <token>``) acts only on its own table, only where
  the dealer role is allowed, and only on its kind's endpoints (``devices``: a dealer terminal
  by default; a card-reading shoe reports cards and reads its shoe, never money). A device is
  refused everywhere else, table-scoped or not.
An id that names nothing lets the request through to the view, which answers 404.
"""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework.permissions import SAFE_METHODS, BasePermission

from .roles import ALL_ROLES, Role, roles_of
from .scopes import table_of

# The policy of the existing endpoints, in one place so the matrix test reads it.
FLOOR_READERS: frozenset[str] = ALL_ROLES
FLOOR: frozenset[str] = frozenset({Role.DEALER, Role.PIT_BOSS})
PIT: frozenset[str] = frozenset({Role.PIT_BOSS})
CAGE: frozenset[str] = frozenset({Role.CASHIER, Role.CAGE_SUPERVISOR})
PATRON_DESK: frozenset[str] = frozenset({Role.CASHIER, Role.CAGE_SUPERVISOR, Role.PIT_BOSS})
# Patron records hold identity (AML): not for dealers, runners or the count room.
PATRON_READERS: frozenset[str] = frozenset(
    {Role.CASHIER, Role.CAGE_SUPERVISOR, Role.PIT_BOSS, Role.AUDITOR, Role.ADMIN}
)
# The ledger and its projections: the supervisors, the cage, the count room and the auditor.
LEDGER_READERS: frozenset[str] = ALL_ROLES - {Role.DEALER, Role.RUNNER}
# Who reads the dealer assignments and the device list.
ASSIGNMENT_READERS: frozenset[str] = frozenset({Role.PIT_BOSS, Role.ADMIN, Role.AUDITOR})
NOBODY: frozenset[str] = frozenset()


# The kinds of device (``staff.models.DeviceToken.Kind``) an endpoint admits unless it names its own.
TERMINAL_ONLY: frozenset[str] = frozenset({"terminal"})
TERMINAL_AND_SHOE: frozenset[str] = frozenset({"terminal", "shoe"})


def roles_allowed(
    *,
    read: Iterable[str] = (),
    write: Iterable[str] = (),
    table: str | None = None,
    devices: Iterable[str] = TERMINAL_ONLY,
) -> type[BasePermission]:
    read_roles, write_roles, device_kinds = frozenset(read), frozenset(write), frozenset(devices)

    class RolesAllowed(BasePermission):
        message = "your role does not allow this"
        allowed_read = read_roles
        allowed_write = write_roles
        table_scope = table
        allowed_devices = device_kinds

        def has_permission(self, request, view) -> bool:
            from .models import DeviceToken

            if not (request.user and request.user.is_authenticated):
                return False
            allowed = read_roles if request.method in SAFE_METHODS else write_roles
            if isinstance(request.auth, DeviceToken):
                if table is None or Role.DEALER not in allowed:
                    self.message = "a device acts only on its own table's dealer endpoints"
                    return False
                if request.auth.kind not in device_kinds:
                    self.message = f"a {request.auth.kind} device does not act on this endpoint"
                    return False
                code = table_of(table, view.kwargs)
                if code is not None and code != request.auth.table_code:
                    self.message = f"this device is bound to table {request.auth.table_code}"
                    return False
                return True
            held = roles_of(request.user) & allowed
            if not held:
                return False
            from .accounts import PASSWORD_CHANGE_MESSAGE, password_change_due

            if password_change_due(request.user):
                # Someone else changed his account: nothing until he has chosen his own password.
                self.message = PASSWORD_CHANGE_MESSAGE
                return False
            if table is not None and held == {Role.DEALER}:
                from .services import dealer_table

                code = table_of(table, view.kwargs)
                if code is not None and code != dealer_table(request.user):
                    self.message = "a dealer acts only on the table he is assigned to, while assigned"
                    return False
            return True

    return RolesAllowed
