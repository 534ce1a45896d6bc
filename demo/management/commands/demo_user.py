"""``manage.py demo_user``: a local login for trying the demo API (never for production)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from staff.roles import Role, grant


class Command(BaseCommand):
    help = "Create the demo login 'pitboss' (password 'pitboss') if it does not exist."

    def handle(self, *args, **options):
        user, created = get_user_model().objects.get_or_create(username="pitboss", defaults={"is_staff": True})
        if created:
            user.set_password("pitboss")
            user.save()
        grant(user, Role.PIT_BOSS)
        self.stdout.write("Demo login: pitboss / pitboss (HTTP Basic or session) — for the local demo only.")
