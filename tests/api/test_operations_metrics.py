"""``/metrics`` in the Prometheus format names request latency by view, commands
and refusals by type, ledger append latency and events, projection lag per projector and Celery
task run times; only the allowed addresses or the token may read it."""

import json
import re
from pathlib import Path

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from ledger import projections
from ledger.tasks import catch_up_projections

pytestmark = pytest.mark.django_db

ROUGE = {"type": "chance_simple", "chance": "rouge"}


def scrape(client=None, **headers) -> dict:
    """``{(sample name, sorted labels): value}`` of one scrape."""
    response = (client or Client()).get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_requests_commands_refusals_appends_tasks_and_lag(api, table, patron):
    before = scrape()
    round_id = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    placed = api.post(
        f"/api/rounds/{round_id}/bets", {"patron": patron, "stake_cents": 1_000, "bet": ROUGE}, format="json"
    )
    assert placed.status_code == 201, placed.json()
    over = api.post(
        f"/api/rounds/{round_id}/bets", {"patron": patron, "stake_cents": 10_000_000, "bet": ROUGE}, format="json"
    )
    assert over.status_code == 400
    catch_up_projections.apply()  # run here, in this process, whatever the broker (CI sets one)
    after = scrape()

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("casino_http_request_seconds_count", view="bet-place", method="POST") == 2
    assert delta("casino_http_requests_total", view="bet-place", method="POST", status="201") == 1
    assert delta("casino_http_requests_total", view="bet-place", method="POST", status="400") == 1
    assert delta("casino_commands_total", command="round_open", outcome="committed") == 1
    assert delta("casino_commands_total", command="bet_place", outcome="committed") == 1
    assert delta("casino_commands_total", command="bet_place", outcome="refused") == 1
    assert delta("casino_command_refusals_total", command="bet_place", reason="table_maximum") == 1
    assert delta("casino_command_seconds_count", command="bet_place") == 1
    assert delta("casino_ledger_append_seconds_count") == 2  # the coup opened, the bet placed
    assert delta("casino_ledger_events_appended_total") == 2
    assert delta("casino_celery_task_seconds_count", task="ledger.tasks.catch_up_projections", state="SUCCESS") == 1
    for name in projections.names():  # caught up by the task
        assert value(after, "casino_projection_lag_positions", projection=name) == 0


def test_metrics_show_each_projections_lag(patron):
    samples = scrape()
    head = projections.lag()[0]["head"]
    assert head >= 3
    assert {
        name: value(samples, "casino_projection_lag_positions", projection=name) for name in projections.names()
    } == (dict.fromkeys(projections.names(), head))


def test_metrics_are_refused_to_other_addresses_unless_they_send_the_token(db, settings):
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1"]
    settings.METRICS_TOKEN = ""
    outside = Client(REMOTE_ADDR="203.0.113.9")
    assert outside.get("/metrics").status_code == 403
    settings.METRICS_TOKEN = "s3cret-scrape-token"
    assert outside.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert "casino_projection_lag_positions" in str(scrape(outside, HTTP_AUTHORIZATION="Bearer s3cret-scrape-token"))
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 200


def test_the_grafana_dashboard_queries_only_metrics_that_metrics_exposes(api, table, patron):
    dashboard = json.loads((Path(__file__).resolve().parents[2] / "deploy" / "grafana-dashboard.json").read_text())
    queried = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"\b(casino_[a-z_]+)", target["expr"])
    }
    # A command and a refusal: their labelled counters exist from now on.
    round_id = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    over = {"patron": patron, "stake_cents": 10_000_000, "bet": ROUGE}
    assert api.post(f"/api/rounds/{round_id}/bets", over, format="json").status_code == 400
    catch_up_projections.apply()  # run here, whatever the broker
    exposed = {name for name, _ in scrape()}
    assert len(dashboard["panels"]) == 9  # the last: checkpoint files missing
    assert queried - exposed == set()


def test_metrics_relayed_by_a_proxy_on_the_same_host_need_the_token(db, settings):
    """A reverse proxy on the node makes every visitor's request come from 127.0.0.1: a request
    carrying a proxy's header is not the local Prometheus, whatever its address."""
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1"]
    settings.METRICS_TOKEN = "s3cret-scrape-token"
    local = Client(REMOTE_ADDR="127.0.0.1")
    for header in ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP"):
        assert local.get("/metrics", **{header: "203.0.113.9"}).status_code == 403, header
    relayed = local.get("/metrics", HTTP_X_FORWARDED_FOR="203.0.113.9", HTTP_AUTHORIZATION="Bearer s3cret-scrape-token")
    assert relayed.status_code == 200
    assert local.get("/metrics").status_code == 200  # the local scrape, no proxy between


def test_metrics_say_database_up_1_when_it_answers_and_0_with_a_200_when_it_does_not(monkeypatch, patron):
    from ledger import outage

    samples = scrape()
    assert value(samples, "casino_database_up") == 1.0
    assert ("casino_projection_lag_positions", (("projection", "balances"),)) in samples
    monkeypatch.setattr(outage, "probe", lambda timeout: False)
    samples = scrape()  # 200: the scrape answers whatever the database does
    assert value(samples, "casino_database_up") == 0.0
    assert not [key for key in samples if key[0] == "casino_projection_lag_positions"]  # read from it: left out
    assert any(key[0] == "casino_http_requests_total" for key in samples)
