"""Fixtures the API and page tests share."""

import pytest

from staff.roles import Role, grant


@pytest.fixture
def auditor(client, django_user_model):
    """Django's test ``client`` logged in (session) as ``aud1``, an auditor: the audit pages.
    A module needing another kind of auditor client defines its own ``auditor``."""
    user = django_user_model.objects.create_user(username="aud1", password="x")
    grant(user, Role.AUDITOR)
    client.force_login(user)
    return client
