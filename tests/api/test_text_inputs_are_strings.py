"""Every text a command takes is a JSON string: DRF's ``CharField`` turns ``12345``, ``-1`` or
``true`` into "12345", "-1" or "True" (a patron named 12345, a reason that is no reason); the
project's ``core.views.TextField`` refuses them with a 400 naming the field."""

import pytest
from django.urls import reverse
from rest_framework import serializers

import casino.urls  # noqa: F401  (every view module loaded)
from core.views import CommandView
from staff.roles import Role, grant


def _command_views(cls=CommandView):
    for sub in cls.__subclasses__():
        yield sub
        yield from _command_views(sub)


def test_no_command_takes_text_through_a_field_that_accepts_a_number_or_a_boolean():
    loose = sorted(
        f"{view.__module__}.{view.__qualname__}.{name}"
        for view in _command_views()
        if getattr(view, "input_serializer", None) is not None
        for name, field in view.input_serializer().fields.items()
        if not field.read_only and serializers.CharField in (type(field), type(getattr(field, "child", None)))
    )
    assert loose == []


@pytest.mark.django_db
@pytest.mark.parametrize("name", [12345, -1, True, None, ["a"], {"a": 1}])
def test_a_patron_named_by_something_other_than_text_is_refused_naming_the_field(client, django_user_model, name):
    user = django_user_model.objects.create_user(username="cash1", password="pw")
    grant(user, Role.CASHIER)
    client.force_login(user)
    answer = client.post(
        reverse("patron-register"),
        {"kind": "identified", "name": name, "document": "ID-1"},
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert answer.json()["field"] == "name"
