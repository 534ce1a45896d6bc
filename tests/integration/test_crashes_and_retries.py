"""Crashes and retries on PostgreSQL with real commits: a process killed in the middle of a settlement
leaves the whole coup or nothing; a device's retried request with the same idempotency key
has one effect, even when both copies arrive at once; C20, every model with a protected FSM
state field reloads it (``refresh_from_db``, also after ``select_for_update``).
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.db import connection, transaction
from django_fsm import FSMField
from rest_framework.test import APIClient

from games.models import Bet, Round
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.shoes import shoe_start
from games.services.tables import table_open
from ledger import accounts, store
from ledger.models import Event
from ledger.verify import verify_chain
from staff.services import device_token_issue
from tests.conftest import ACTOR, SHIFT_CASHIER, make_patron, staff_user
from tests.integration.concurrency import run_concurrently

ROOT = Path(__file__).resolve().parents[2]

# Run in a child process: settle the coup, and on the second bet's settlement the process
# kills itself (SIGKILL: no exception handler, no rollback by Python, the connection just drops).
KILL_MID_SETTLEMENT = """
import os, signal, sys
import django
django.setup()
from games.services import rounds
real, calls = rounds._settle_bet, []
def settle_then_die(*args, **kwargs):
    calls.append(1)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*args, **kwargs)
rounds._settle_bet = settle_then_die
rounds.round_record_result(round_id=sys.argv[1], number=4, actor="killed-worker")
"""


@pytest.mark.postgres
def test_a_process_killed_mid_settlement_leaves_the_coup_unsettled(committed_db, table):
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    for chance in ("pair", "impair", "rouge"):
        bet_place(
            round_id=coup, patron=code, stake_cents=1_000, bet={"type": "chance_simple", "chance": chance}, actor=ACTOR
        )
    round_close_bets(round_id=coup, actor=ACTOR)
    before = (Event.objects.count(), store.balance(accounts.patron_chips(code)), store.head())

    settings = connection.settings_dict
    url = (
        f"postgres://{settings['USER']}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "casino.settings", "CELERY_BROKER_URL": ""}
    child = subprocess.run(
        [sys.executable, "-c", KILL_MID_SETTLEMENT, coup], cwd=ROOT, env=env, capture_output=True, timeout=120
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()

    # Nothing of the coup's settlement survived: no event, no posting, the round still closed.
    assert (Event.objects.count(), store.balance(accounts.patron_chips(code)), store.head()) == before
    assert Round.objects.get(pk=coup).state == Round.State.CLOSED_FOR_BETS
    assert set(Bet.objects.filter(round_id=coup).values_list("state", flat=True)) == {"placed"}
    # And the coup settles whole afterwards, on an intact chain.
    result = round_record_result(round_id=coup, number=4, actor=ACTOR)
    assert result["bets_settled"] == 3 and result["state"] == "settled"
    # 4: pair wins 1:1 (+2,000 back), impair and rouge (4 is black) lose.
    assert store.balance(accounts.patron_chips(code)) == 100_000 - 3_000 + 2_000
    assert verify_chain().ok


@pytest.mark.postgres
def test_a_device_retrying_a_bet_with_one_key_places_it_once(committed_db, table):
    code = make_patron(100_000)
    pit = staff_user("pit-c20", "pit_boss")
    token = device_token_issue(name="terminal-R1", kind="terminal", table="R1", actor=pit.username)["token"]
    coup = round_open(table="R1", actor=ACTOR)["round"]
    body = {"patron": code, "stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": "noir"}}

    def send():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Device {token}", HTTP_IDEMPOTENCY_KEY="terminal-R1-bet-0001")
        response = client.post(f"/api/rounds/{coup}/bets", body, format="json")
        return response.status_code, response.json()

    first, second = run_concurrently(send, send)
    third = send()  # a late retry, after both
    assert first[0] == second[0] == third[0] == 201, (first, second, third)
    assert first[1] == second[1] == third[1]
    assert Bet.objects.filter(round_id=coup).count() == 1
    assert Event.objects.filter(type="BetPlaced", correlation_id=coup).count() == 1
    assert Event.objects.get(type="BetPlaced", correlation_id=coup).actor == "device:terminal-R1"
    assert store.balance(accounts.patron_chips(code)) == 99_000


def _protected_state_models() -> list:
    return sorted(
        (
            model
            for model in apps.get_models()
            if any(isinstance(f, FSMField) and getattr(f, "protected", False) for f in model._meta.concrete_fields)
        ),
        key=lambda m: m._meta.label,
    )


@pytest.fixture
def one_of_each(table, colour_patron):
    """One row of every model with a protected state field (C20), made through the services."""
    from cashier.credit_models import Marker
    from cashier.models import Cage, Slip
    from cashier.services.credit import credit_line_set, marker_issue
    from cashier.services.slips import slip_request
    from games.models import ColourStack, Shoe, Table

    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup,
        patron=colour_patron,
        stake_cents=200,
        chips="colour",
        bet={"type": "plein", "numbers": [3]},
        actor=ACTOR,
    )
    table_open(code="B1", game="blackjack", opener_cents=1_000_000, actor=ACTOR, rules={})
    shoe = shoe_start(table="B1", actor=ACTOR)["shoe"]
    staff_user("pit-slip", "pit_boss")
    serial = slip_request(kind="fill", table="R1", denominations={"500": 2}, actor="pit-slip")["serial"]
    debtor = make_patron()
    staff_user("super-credit", "cage_supervisor")
    credit_line_set(patron=debtor, limit_cents=100_000, actor="super-credit")
    marker = marker_issue(patron=debtor, amount_cents=50_000, actor=SHIFT_CASHIER)["serial"]  # the open shift's
    return {
        Marker: Marker.objects.get(serial=marker),
        Slip: Slip.objects.get(serial=serial),
        Table: Table.objects.get(code="R1"),
        Round: Round.objects.get(pk=coup),
        Bet: Bet.objects.filter(round_id=coup).first(),
        Shoe: Shoe.objects.get(pk=shoe),
        Cage: Cage.objects.get(),
        ColourStack: ColourStack.objects.first(),
    }


@pytest.mark.django_db
def test_c20_every_protected_state_field_reloads(one_of_each):
    models = _protected_state_models()
    missing = [m._meta.label for m in models if m not in one_of_each]
    assert not missing, f"C20: add a row of {missing} to the one_of_each fixture"
    for model, instance in one_of_each.items():
        field = next(f for f in model._meta.concrete_fields if isinstance(f, FSMField) and f.protected)
        other = next(value for value, _ in field.choices if value != getattr(instance, field.attname))
        # Another writer changes the row (a queryset update, as a concurrent request would).
        model.objects.filter(pk=instance.pk).update(**{field.attname: other})
        instance.refresh_from_db()
        assert getattr(instance, field.attname) == other, model
        with transaction.atomic():
            locked = model.objects.select_for_update().get(pk=instance.pk)
            locked.refresh_from_db(fields=[field.attname])
            assert getattr(locked, field.attname) == other, model
