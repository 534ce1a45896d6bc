"""``manage.py staff_roles USERNAME ROLE...``: give a user exactly these roles (set-up, deploy).

The change is a ``StaffRolesChanged`` event (before/after) with the actor ``manage.py`` (the
operator at the console); ``--add`` keeps the roles the user already holds."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from ledger.errors import DomainError
from staff.roles import ALL_ROLES
from staff.services import record_roles_change


class Command(BaseCommand):
    help = "Set a user's roles (dealer, pit_boss, cashier, ...); recorded in the ledger."

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
            with transaction.atomic():
                result = record_roles_change(user=user, after=after, actor="manage.py")
        except DomainError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"{username}: {result['before']} -> {result['after']} (event {result['position']})")
