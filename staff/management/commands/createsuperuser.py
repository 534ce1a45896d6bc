"""``manage.py createsuperuser``: Django's, and the account it creates is recorded in the ledger.

Django's own command writes the row and nothing else: ``ledger verify`` would then find an
account no identity event created (as one inserted with raw SQL). This one runs Django's (its
prompts, ``DJANGO_SUPERUSER_*`` variables, password validation) and, in the same transaction,
records the new account through ``staff.services.staff_account_recorded`` (``StaffUserChanged``
with the digest of its password), with the actor ``manage.py`` (the operator at the console).

It makes the first admin only (``staff.accounts.console_refusal``): run twice, one operator
held the two admins a password reset needs.
"""

from django.contrib.auth.management.commands import createsuperuser
from django.core.management.base import CommandError
from django.db import transaction
from django.db.models.signals import post_save

from staff.accounts import console_refusal
from staff.services import staff_account_recorded

CONSOLE = "manage.py"


class Command(createsuperuser.Command):
    def handle(self, *args, **options):
        refusal = console_refusal("createsuperuser")
        if refusal:
            raise CommandError(refusal)
        created_users = []

        def remember(sender, instance, created: bool, **kwargs):
            if created:
                created_users.append(instance)

        with transaction.atomic(using=options["database"]):
            post_save.connect(remember, sender=self.UserModel, weak=False, dispatch_uid="staff-createsuperuser")
            try:
                super().handle(*args, **options)
            finally:
                post_save.disconnect(sender=self.UserModel, dispatch_uid="staff-createsuperuser")
            for user in created_users:
                staff_account_recorded(user=user, actor=CONSOLE)
