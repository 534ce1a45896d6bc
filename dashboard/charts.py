"""Server-side SVG charts (pygal): no JavaScript, no CDN; the SVG is inlined in the page."""

from __future__ import annotations

from datetime import datetime

import pygal
from pygal.style import Style

from games.rules.money import currency

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


def win_chart(series: list[tuple[datetime, int]], *, table: str) -> str:
    """The table's cumulative win over the gaming day as an inline SVG string.

    ``series``: ``[(occurred_at UTC, win so far in cents)]`` (``dashboard.selectors.win_series``);
    plotted in CASINO_CURRENCY (cents / 100, display only: money stays in cents everywhere else)."""
    chart = pygal.DateTimeLine(
        title=f"Win of {table} over the gaming day ({currency()}, house side)",
        width=720,
        height=300,
        style=CHART_STYLE,
        show_legend=False,
        js=[],  # pygal's default tooltip script is fetched from a CDN: none here
        disable_xml_declaration=True,
        x_label_rotation=20,
        x_value_formatter=lambda moment: moment.strftime("%H:%M"),
        value_formatter=lambda euros: f"{euros:,.2f}",
        no_data_text="no coup yet today",
        dots_size=2,
    )
    chart.add("win", [(moment, cents / 100) for moment, cents in series])
    return chart.render(is_unicode=True)
