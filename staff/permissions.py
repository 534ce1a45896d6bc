"""DRF permissions by role (403 for a logged-in user without the role, 401 when anonymous).

Usage on a view::

    permission_classes = [roles_allowed(read=STAFF_ROLES, write={Role.CASHIER})]

``read`` applies to safe methods (GET, HEAD, OPTIONS), ``write`` to the others.
"""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework.permissions import SAFE_METHODS, BasePermission

from .roles import roles_of


def roles_allowed(*, read: Iterable[str] = (), write: Iterable[str] = ()) -> type[BasePermission]:
    read_roles, write_roles = frozenset(read), frozenset(write)

    class RolesAllowed(BasePermission):
        message = "your role does not allow this"
        allowed_read = read_roles
        allowed_write = write_roles

        def has_permission(self, request, view) -> bool:
            if not (request.user and request.user.is_authenticated):
                return False
            allowed = read_roles if request.method in SAFE_METHODS else write_roles
            return bool(roles_of(request.user) & allowed)

    return RolesAllowed
