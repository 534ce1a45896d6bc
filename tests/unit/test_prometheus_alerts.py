"""deploy/prometheus-alerts.yml: Prometheus's own checker accepts it, its examples
(tests/data/prometheus_alerts_test.yml) fire and stay quiet when they should, and it alerts on
each gauge an operator watches, each rule waiting a ``for:`` and saying what is wrong.

``promtool`` comes from Debian's ``prometheus`` package (scripts/setup.sh dev). Where it is
missing the two promtool tests skip, except where they must run: with ``CI=true`` (or
``CASINO_REQUIRE_PROMTOOL=1``) a missing promtool fails them, as a missing browser fails the
browser tests, so a green CI run always checked the rules."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus-alerts.yml"
EXAMPLES = ROOT / "tests" / "data" / "prometheus_alerts_test.yml"
REQUIRED = os.environ.get("CASINO_REQUIRE_PROMTOOL") == "1" or os.environ.get("CI") == "true"

# Each gauge and the alert on it: /metrics (casino.metrics, ledger.alert_gauges) and the scrape.
WATCHED = {
    "up": "CasinoScrapeFailing",
    "casino_database_up": "CasinoDatabaseDown",
    "casino_broker_up": "CasinoBrokerDown",
    "casino_ready": "CasinoNotReady",
    "casino_projection_lag_positions": "CasinoProjectionLagging",
    "casino_checkpoint_age_seconds": "CasinoCheckpointStale",
    "casino_unsealed_day_age_seconds": "CasinoGamingDayUnsealed",
    "casino_suspicion_cases_overdue": "CasinoSuspicionCaseOverdue",
}


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        message = "promtool not found (Debian package prometheus: scripts/setup.sh dev)"
        if REQUIRED:
            pytest.fail(f"{message}, and CI=true needs the alert rules checked")
        pytest.skip(message)
    return found


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([promtool(), *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_promtool_accepts_the_alert_rules():
    checked = run("check", "rules", str(RULES.relative_to(ROOT)))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"SUCCESS: {len(WATCHED)} rules found" in checked.stdout


def test_the_alert_examples_fire_and_stay_quiet_as_promtool_replays_them():
    """A broker lost on one node of two, a quiet night's old checkpoint (no alert), checkpoints
    stopped while events arrive (one alert for the ledger), a played day left unsealed."""
    tested = run("test", "rules", str(EXAMPLES.relative_to(ROOT)))
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "SUCCESS" in tested.stdout


def test_each_watched_gauge_has_its_alert_which_waits_and_says_what_is_wrong():
    (group,) = yaml.safe_load(RULES.read_text())["groups"]
    rules = {rule["alert"]: rule for rule in group["rules"]}
    assert sorted(rules) == sorted(WATCHED.values())
    for gauge, alert in WATCHED.items():
        assert re.search(rf"\b{gauge}\b", rules[alert]["expr"]), alert
    assert {alert: rule["for"] for alert, rule in rules.items()} == {
        "CasinoScrapeFailing": "2m",
        "CasinoDatabaseDown": "1m",
        "CasinoBrokerDown": "2m",
        "CasinoNotReady": "5m",
        "CasinoProjectionLagging": "10m",
        "CasinoCheckpointStale": "10m",
        "CasinoGamingDayUnsealed": "15m",
        "CasinoSuspicionCaseOverdue": "15m",
    }
    assert all(rule["annotations"]["summary"] and rule["annotations"]["description"] for rule in rules.values())
    # The same example file drives promtool: each alert it names is one of these.
    examples = yaml.safe_load(EXAMPLES.read_text())["tests"]
    exercised = {case["alertname"] for test in examples for case in test["alert_rule_test"]}
    assert exercised == {"CasinoBrokerDown", "CasinoCheckpointStale", "CasinoGamingDayUnsealed"}
