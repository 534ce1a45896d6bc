"""``manage.py staff_roles USERNAME ROLE...``: a new site's set-up: give the first account its roles.

The console sets roles alone only while no other active account holds the admin role (a
superuser or the admin group): nobody else could sign. Once one does, a role change needs a
second admin: ``manage.py account_change roles USERNAME ROLE... --actor ADMIN`` requests it and
the other admin confirms it from his own session (``POST /api/approvals/<id>/confirm``).
The change is a ``StaffRolesChanged`` event (before/after) with the actor ``manage.py`` (the
operator at the console); ``--add`` keeps the roles the user already holds."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ledger.errors import DomainError
from staff.accounts import bootstrap_roles_allowed
from staff.roles import ALL_ROLES, check_compatible
from staff.services import record_roles_change


class Command(BaseCommand):
    help = "Set the first account's roles on a new site (dealer, pit_boss, cashier, ...); recorded in the ledger."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("roles", nargs="*", choices=sorted(ALL_ROLES))
        parser.add_argument("--add", action="store_true", help="add to the roles held instead of replacing them")

    def handle(self, *args, username, roles, add, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no such user: {username}")
        held = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        after = set(roles) | (held if add else set())
        try:
            check_compatible(after)
            if not bootstrap_roles_allowed(username):
                raise CommandError(
                    "another admin exists, so a role change needs his signature: request it with "
                    f"`manage.py account_change roles {username} {' '.join(sorted(after))} --actor <you>`; "
                    "the other admin confirms it from his own session (POST /api/approvals/<id>/confirm)"
                )
            with transaction.atomic():
                result = record_roles_change(user=user, after=after, actor="manage.py")
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"{username}: {result['before']} -> {result['after']} (event {result['position']})")
