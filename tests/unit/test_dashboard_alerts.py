"""The pit boss's alerts as pure functions (dashboard.alerts): thresholds and messages."""

from fractions import Fraction

from dashboard import alerts
from dashboard.alerts import Alert


def test_hold_alert_needs_enough_handle():
    assert alerts.HOLD_MIN_HANDLE_CENTS == 1_000_000
    theory = Fraction(999_999, 37)
    assert alerts.hold_alert("R1", win_cents=400_000, handle_cents=999_999, theoretical_win=theory) is None


def test_hold_alert_fires_when_win_on_handle_is_ten_points_off_theory():
    # Roulette's 1/37 edge on 1,000,000 cents of handle: theory 2.70% (27,027.03 cents).
    theory = Fraction(1_000_000, 37)
    assert alerts.hold_alert("R1", win_cents=127_027, handle_cents=1_000_000, theoretical_win=theory) is None  # 12.70%
    alert = alerts.hold_alert("R1", win_cents=128_000, handle_cents=1_000_000, theoretical_win=theory)  # 12.80%
    assert alert == Alert("R1", "hold", "warning", "win is 12.8% of handle against 2.7% in theory")
    below = alerts.hold_alert("R1", win_cents=-74_000, handle_cents=1_000_000, theoretical_win=theory)  # -7.40%
    assert below is not None and below.message == "win is -7.4% of handle against 2.7% in theory"


def test_hold_alert_is_silent_when_theory_is_unknown():
    assert alerts.hold_alert("S1", win_cents=90_000, handle_cents=100_000, theoretical_win=None) is None


def test_large_payout_counts_winnings_not_the_stake_and_says_when_with_a_link_to_its_coup():
    link = "/dashboard/coups/0b6f3c1e-2f7a-4d1e-9a51-1f0c2b3d4e5f/audit/"
    payouts = [
        {"patron": "P00001", "won_cents": 99_999, "position": 10, "local_time": "14:02 CET", "link": link},
        {"patron": "P00002", "won_cents": 100_000, "position": 11, "local_time": "14:03 CET", "link": link},
        {"patron": "P00003", "won_cents": 200_000, "position": 12},
    ]
    assert alerts.payout_alerts("R1", payouts) == [
        Alert("R1", "payout", "warning", "P00002 won 1,000.00 EUR in one payout at 14:03 CET", link),
        Alert("R1", "payout", "warning", "P00003 won 2,000.00 EUR in one payout", ""),
    ]


def test_cut_card_alert_counts_the_cards_left():
    assert alerts.cut_card_alert("B1", drawn=280, cut_position=301, state="in_play") is None
    assert alerts.cut_card_alert("B1", drawn=281, cut_position=301, state="in_play") == Alert(
        "B1", "cut_card", "info", "20 cards to the cut card"
    )
    exhausted = alerts.cut_card_alert("B1", drawn=305, cut_position=301, state="exhausted")
    assert exhausted is not None and exhausted.level == "warning"
    assert alerts.cut_card_alert("B1", drawn=0, cut_position=0, state="in_play") is None  # a reading shoe: no cut


def test_outstanding_colour_chips_and_prison_bets():
    assert alerts.outstanding_alerts("R1", colour_chips=0, prison_bets=0) == []
    found = alerts.outstanding_alerts("R1", colour_chips=2, prison_bets=1)
    assert [(a.kind, a.message) for a in found] == [
        ("colour_chips", "2 colour stack(s) outstanding: change back before close"),
        ("prison", "1 bet(s) in prison: resolve before close"),
    ]


def test_no_refused_bet_no_alert():
    assert alerts.refused_alert("R1", []) is None


def test_refused_bets_at_table_limits_are_information_with_the_count_and_the_last_reason():
    refusals = [
        {"kind": "table_maximum", "patron": "P00003", "stake_cents": 20_000, "message": "200.00 is over the maximum"},
        {"kind": "table_minimum", "patron": None, "stake_cents": 100, "message": "1.00 is under the minimum"},
        {"kind": "table_maximum", "patron": "P00004", "stake_cents": 15_000, "message": "150.00 is over the maximum"},
    ]
    assert alerts.refused_alert("R1", refusals) == Alert(
        "R1",
        "refused",
        "info",
        "3 bets refused today (1 table minimum, 2 table maximum); "
        "last: P00004, 150.00 EUR, table maximum: 150.00 is over the maximum",
    )
    one = alerts.refused_alert("R1", refusals[1:2])
    assert one is not None and one.message.startswith("1 bet refused today (1 table minimum); ")
    assert one.message.endswith("last: patron not known, 1.00 EUR, table minimum: 1.00 is under the minimum")


def test_the_last_refusal_naming_its_limit_reads_as_one_sentence_without_the_limits_name_before_it():
    refusals = [
        {
            "kind": "table_maximum",
            "patron": "P00042",
            "stake_cents": 500_000,
            "message": "over the table maximum: 5,000.00 EUR on this position, the maximum is 1,000.00 EUR",
        }
    ]
    alert = alerts.refused_alert("R1", refusals)
    assert alert is not None and alert.message == (
        "1 bet refused today (1 table maximum); last: P00042, 5,000.00 EUR, "
        "over the table maximum: 5,000.00 EUR on this position, the maximum is 1,000.00 EUR"
    )


def test_a_refusal_over_a_self_limit_makes_the_alert_a_warning():
    refusals = [
        {"kind": "self_limit", "patron": "P00003", "stake_cents": 10_001, "message": "over his own limit"},
        {"kind": "box_maximum", "patron": "P00005", "stake_cents": 50_000, "message": "over the box maximum"},
    ]
    alert = alerts.refused_alert("B1", refusals)
    assert alert is not None and alert.level == "warning"
    assert alert.message == (
        "2 bets refused today (1 box maximum, 1 self-limit); last: P00005, 500.00 EUR, over the box maximum"
    )


def test_count_variances_warn_from_the_investigation_threshold_and_say_which_count_when_and_by_whom():
    seen = {"actor": "count1", "local_time": "06:40 CET"}
    rows = [
        {"kind": "drop", "subject": "R1", "event": 40, "variance_cents": -2_500, "investigate": True, **seen},
        {"kind": "opener", "subject": "B1", "event": 41, "variance_cents": 100, "investigate": False, "actor": "pit2"},
        {"kind": "cage_shift", "subject": "main", "event": 42, "variance_cents": 0, "investigate": False},
        {"kind": "cage_handover", "subject": "main", "event": 43, "variance_cents": -500, "investigate": False},
    ]
    assert alerts.variance_alerts(rows) == [
        Alert("R1", "variance", "warning", "drop variance of -25.00 EUR: drop box counted at 06:40 CET by count1"),
        Alert("B1", "variance", "info", "opener variance of 1.00 EUR: table opened by pit2"),
        Alert("main", "variance", "info", "cage handover variance of -5.00 EUR: cage handed over"),
    ]
    assert not any("#4" in alert.message for alert in alerts.variance_alerts(rows))


def test_eur_formats_cents():
    assert [alerts.eur(c) for c in (0, 5, -5, 123_456_789)] == ["0.00 EUR", "0.05 EUR", "-0.05 EUR", "1,234,567.89 EUR"]


def test_a_failed_scheduled_export_is_a_warning_naming_the_day_the_file_and_the_reason():
    from datetime import date

    rows = [
        {
            "gaming_day": date(2026, 11, 30),
            "file": "/var/lib/casino-exports/gaming-day-2026-11-30.zip",
            "error": "Permission denied: /var/lib/casino-exports",
            "attempted": "2026-12-01 07:15 CET",
        }
    ]
    assert alerts.export_alerts(rows) == [
        Alert(
            "Regulatory export",
            "export",
            "warning",
            "gaming day 2026-11-30 not exported to /var/lib/casino-exports/gaming-day-2026-11-30.zip: "
            "Permission denied: /var/lib/casino-exports (last try 2026-12-01 07:15 CET; retried at each scheduled run)",
        )
    ]
    assert alerts.export_alerts([]) == []


def test_refusals_for_chips_and_closed_betting_read_in_words():
    refusals = [
        {"kind": "insufficient_chips", "patron": "P00001", "stake_cents": 1_000, "message": "P00001 holds 0.00 EUR"},
        {"kind": "betting_closed", "patron": "P00002", "stake_cents": 500, "message": "rien ne va plus"},
        {"kind": "insufficient_chips", "patron": "P00003", "stake_cents": 200, "message": "no colour chips"},
        {"kind": "table_closed", "patron": "P00004", "stake_cents": 300, "message": "table R1 is closed"},
    ]
    alert = alerts.refused_alert("R1", refusals)
    assert alert.message == (
        "4 bets refused today (2 not enough chips, 1 after betting closed, 1 at a closed table); "
        "last: P00004, 3.00 EUR, at a closed table: table R1 is closed"
    )


def test_fluctuation_alert_says_the_win_the_theory_and_the_standard_deviations():
    row = {"table": "R1", "alarm": True, "z": -4.9295, "win_cents": -312_000, "theoretical_win": Fraction(120_000, 37)}
    alert = alerts.fluctuation_alert("R1", row | {"bets": 120}, limit=Fraction(3), link="/x")
    assert alert.kind == "fluctuation" and alert.level == "warning" and alert.link_text == "open an investigation"
    assert alert.message == (
        "house win -3,120.00 EUR against 32.43 EUR in theory over 120 bets: −4.93 SD, "
        "beyond ±3 SD of the bets' exact variance"
    )
    patron = alerts.fluctuation_alert(
        "R1", row | {"bets": 120, "patron": "P00001"}, limit=Fraction(5, 2), open_case=True
    )
    assert patron.message.startswith("patron P00001: house win") and "beyond ±2.5 SD" in patron.message
    assert patron.link_text == "investigation open"
    assert alerts.fluctuation_alert("R1", row | {"alarm": False, "bets": 120}, limit=Fraction(3)) is None
    assert alerts.z_words(None) == "—" and alerts.z_words(3.414) == "+3.41 SD"
