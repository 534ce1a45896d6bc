"""Server-side SVG charts (pygal): no JavaScript, no CDN; the SVG is inlined in the page."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo

import pygal
from pygal.style import Style

from basis.money import currency

# Dark text on white, a colour-blind-safe blue: readable at the contrast the pages keep.
CHART_STYLE = Style(
    background="#ffffff",
    plot_background="#ffffff",
    foreground="#1a1a1a",
    foreground_strong="#1a1a1a",
    foreground_subtle="#555555",
    colors=("#0b5cad",),
    font_family="system-ui, sans-serif",
)


MAX_X_LABELS = 6


def time_labels(moments: list[datetime], *, most: int = MAX_X_LABELS) -> tuple[list[datetime], str]:
    """At most ``most`` moments evenly spaced in time from the first of ``moments`` (oldest
    first) to the last, and the ``strftime`` format that tells them apart: ``%H:%M`` when they
    fall in distinct minutes, else ``%H:%M:%S``. The chart's axis places a label at its moment,
    so labels spaced in time never overlap (picked by rank, a burst of coups after a quiet
    opening would pile them up); a label never repeats."""
    if not moments:
        return [], "%H:%M"
    first, last = moments[0], moments[-1]
    for count in range(min(most, len(moments)), 0, -1):
        picked = [first] if count == 1 else [first + (last - first) * i / (count - 1) for i in range(count)]
        for fmt in ("%H:%M", "%H:%M:%S"):
            if len({m.strftime(fmt) for m in picked}) == len(picked):
                return picked, fmt
    return [first], "%H:%M:%S"


def _local(moment: datetime, zone: tzinfo) -> datetime:
    """pygal hands the formatter back a naive UTC datetime: the casino's time of it."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone)


def win_chart(
    series: list[tuple[datetime, int]], *, table: str, zone: tzinfo, start: datetime | None = None
) -> str | None:
    """The table's cumulative win over the gaming day as an inline SVG string, its time axis in
    ``zone`` (the casino's); ``None`` without a point (the page says "no coups yet" instead of
    drawing an empty grid).

    ``series``: ``[(occurred_at UTC, win so far in cents)]`` (``dashboard.table_reads.win_series``);
    plotted in CASINO_CURRENCY (cents / 100, display only: money stays in cents everywhere else).
    ``start`` (UTC): when the day's win was nil (the table's opening, or the gaming day's start);
    the line starts there at 0, and the y axis always shows 0, so a small day does not look large."""
    if not series:
        return None
    if start is not None and start < series[0][0]:
        series = [(start, 0), *series]
    points = [(moment.astimezone(zone), cents / 100) for moment, cents in series]
    labels, fmt = time_labels([moment for moment, _ in points])
    chart = pygal.DateTimeLine(
        title=f"Win on the coups of {table} over the gaming day ({currency()}, house side)",
        width=720,
        height=300,
        style=CHART_STYLE,
        show_legend=False,
        js=[],  # pygal's default tooltip script is fetched from a CDN: none here
        disable_xml_declaration=True,
        x_label_rotation=20,
        x_value_formatter=lambda moment: _local(moment, zone).strftime(fmt),
        value_formatter=lambda euros: f"{euros:,.2f}",
        dots_size=2,
        include_x_axis=True,  # 0 on the y axis: the day's win is read from nil
        x_labels=labels,
        x_title=f"time ({zone})",
    )
    chart.add("win", points)
    return chart.render(is_unicode=True)
