"""``manage.py account_change (password-reset | roles | reactivate) USERNAME [ROLE...] --actor ADMIN
[--approver ADMIN]``: an operator asks for a change to someone's account.

Nothing changes yet: the request is a pending approval (``ApprovalRequested``) that another
admin confirms from his own session (``POST /api/approvals/<id>/confirm``); the change then
runs (a ledger event naming both) and the account's owner must choose a new password at his
next login. A reset's temporary password is in the confirming admin's answer only.
"""

from django.core.management.base import BaseCommand, CommandError

from ledger.errors import DomainError
from staff.roles import ALL_ROLES

from ...services import approval_request

KINDS = {"password-reset": "staff_password_reset", "roles": "staff_roles_set", "reactivate": "staff_reactivate"}


class Command(BaseCommand):
    help = "Ask for a password reset, a role change or a reactivation; another admin confirms it."

    def add_arguments(self, parser):
        parser.add_argument("change", choices=sorted(KINDS))
        parser.add_argument("username")
        parser.add_argument("roles", nargs="*", help="with roles: every role the account is to hold")
        parser.add_argument("--actor", required=True, help="the admin asking (a username)")
        parser.add_argument("--approver", help="the admin who is to sign (default: any other admin)")

    def handle(self, *args, change, username, roles, actor, approver, **options):
        unknown = [role for role in roles if role not in ALL_ROLES]
        if unknown:
            raise CommandError(f"unknown role {unknown[0]!r}: one of {', '.join(sorted(ALL_ROLES))}")
        if roles and change != "roles":
            raise CommandError(f"{change} takes no roles")
        payload = {"username": username} | ({"roles": roles} if change == "roles" else {})
        if approver:
            payload["approver"] = approver
        try:
            result = approval_request(kind=KINDS[change], payload=payload, actor=actor)
        except DomainError as exc:
            raise CommandError(exc.message) from None
        approval = result.get("approval")
        if approval is None or approval["state"] != "pending":  # never: the maker cannot sign second
            raise CommandError("the change ran without a second signature")
        waits = "; ".join(w["user"] or " or ".join(w["roles"]) for w in approval["waiting_for"])
        self.stdout.write(
            f"approval {approval['id']}: {approval['what']} of {username}, asked by {actor}, waits for {waits} "
            f"(POST /api/approvals/{approval['id']}/confirm from his own session), until {approval['expires_at']}"
        )
