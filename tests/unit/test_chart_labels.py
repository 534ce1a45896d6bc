"""The win chart's time labels sit evenly in time, so none overlaps another on the axis."""

from datetime import UTC, datetime, timedelta

from dashboard.charts import time_labels


def test_labels_are_evenly_spaced_in_time_after_a_quiet_opening_and_a_burst_of_coups():
    opening = datetime(2026, 12, 1, 5, 0, tzinfo=UTC)
    burst = opening + timedelta(hours=3)
    moments = [opening, *(burst + timedelta(seconds=20 * i) for i in range(60))]
    labels, fmt = time_labels(moments)
    gaps = {later - earlier for earlier, later in zip(labels, labels[1:], strict=False)}
    assert len(labels) == 6 and fmt == "%H:%M"
    assert gaps == {(moments[-1] - opening) / 5}  # one gap: evenly spaced, never piled up
    assert (labels[0], labels[-1]) == (opening, moments[-1])


def test_a_single_moment_is_one_label():
    moment = datetime(2026, 12, 1, 5, 0, 7, tzinfo=UTC)
    assert time_labels([moment]) == ([moment], "%H:%M")
