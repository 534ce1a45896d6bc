from django.apps import AppConfig


class StaffConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "staff"
    verbose_name = "Staff, roles and devices"

    def ready(self):
        from ledger import identity

        from . import (
            roles,
            signals,  # noqa: F401 - connects the auth trail's receivers
        )
        from .identity import account_mismatches, assignment_mismatches
        from .standing import standing

        roles.narrow_with(standing)  # roles as the identity events granted them (staff.standing)
        identity.register(account_mismatches)
        identity.register(assignment_mismatches)
