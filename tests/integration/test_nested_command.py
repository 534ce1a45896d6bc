"""``ledger.commands.within``: a command run inside another (an approval running the act it
approves) shares its transaction, keeps its own actor, and is refused anywhere else."""

import pytest

from ledger.commands import ledger_command, within
from ledger.errors import StateConflict
from ledger.models import Event
from ledger.store import NewEvent

pytestmark = pytest.mark.django_db


def _inner(stream: str, fail: bool = False) -> None:
    with ledger_command(actor="maker", request={"op": "inner"}) as cmd:
        cmd.append(stream=stream, expected_version=0, events=[NewEvent("InnerDone", {})])
        if fail:
            raise StateConflict("the act is refused", field="x")


def test_a_command_inside_another_is_refused_unless_the_outer_lets_it_in():
    with ledger_command(actor="signer", request={"op": "outer"}):
        with pytest.raises(RuntimeError, match="durable"):
            _inner("nested/1")
    assert not Event.objects.filter(stream="nested/1").exists()


def test_the_inner_command_writes_as_its_own_actor_in_the_outer_transaction():
    with ledger_command(actor="signer", request={"op": "outer"}) as outer:
        with within(outer):
            _inner("nested/2")
        outer.append(stream="outer/2", expected_version=0, events=[NewEvent("OuterDone", {})])
    assert list(Event.objects.order_by("position").values_list("type", "actor")) == [
        ("InnerDone", "maker"),
        ("OuterDone", "signer"),
    ]


def test_a_refused_inner_command_takes_the_outer_one_with_it():
    with pytest.raises(StateConflict):
        with ledger_command(actor="signer", request={"op": "outer"}) as outer:
            outer.append(stream="outer/3", expected_version=0, events=[NewEvent("OuterDone", {})])
            with within(outer):
                _inner("nested/3", fail=True)
    assert not Event.objects.exists()
