"""One label, one value: on every dashboard page of a demo day (the floor, each table, a coup's
audit, a patron, the approvals, the open form; the cage summary, as the cage supervisor reads
it), the figures read in the browser never show a label twice with two values — in a card or a
list of figures (``dl``), a label names one figure; in a table, a column heading is not repeated and a row named by its
heading (Drop, Win...) holds one value, not one per basis; every figure of a card's
money section carries how it is computed (its ``title``). Screenshots in var/artifacts/."""

import pytest

from games.models import Bet, Round
from staff.roles import Role, grant

from .conftest import ARTIFACTS, log_in
from .test_readable_floor_browser import assert_readable, demo_day  # noqa: F401  (the fixture)

pytestmark = pytest.mark.postgres

# Every label and its value, scope by scope: a card (all its lists of figures together), a
# list of figures outside a card, a table's column headings.
READ_FIGURES = """() => {
  const text = (e) => e.innerText.replace(/\\s+/g, ' ').trim();
  const scopes = [];
  const lists = (root) => {
    const pairs = [];
    root.querySelectorAll('dl').forEach((dl) => {
      let label = null;
      for (const child of dl.children) {
        if (child.tagName === 'DT') label = text(child);
        else if (child.tagName === 'DD' && label !== null) pairs.push([label, text(child)]);
      }
    });
    return pairs;
  };
  document.querySelectorAll('article.card, div.card').forEach((card, i) => {
    scopes.push({scope: 'card ' + (card.dataset.table || i), pairs: lists(card)});
  });
  document.querySelectorAll('dl').forEach((dl, i) => {
    if (!dl.closest('article.card, div.card')) {
      const pairs = [];
      let label = null;
      for (const child of dl.children) {
        if (child.tagName === 'DT') label = text(child);
        else if (child.tagName === 'DD' && label !== null) pairs.push([label, text(child)]);
      }
      scopes.push({scope: 'list ' + i, pairs});
    }
  });
  document.querySelectorAll('table').forEach((table, i) => {
    const heads = [...table.querySelectorAll('thead th')].map(text).filter((t) => t);
    const name = table.getAttribute('aria-label') || table.closest('section')?.id || i;
    scopes.push({scope: 'table ' + name, pairs: heads.map((h) => [h, 'column'])});
    // A row named by a figure (Drop, Win...) gives each of its cells under that one name: two
    // cells, two values for one label (the same figure on two bases).
    const figures = ['Drop', 'Win', 'Hold', 'Handle', 'Theoretical win', 'Edge'];
    const rows = [];
    table.querySelectorAll('tbody tr').forEach((tr) => {
      const head = tr.querySelector('th[scope="row"]');
      if (head && figures.includes(text(head))) {
        tr.querySelectorAll('td').forEach((td) => rows.push([text(head), text(td)]));
      }
    });
    scopes.push({scope: 'rows of ' + name, pairs: rows});
  });
  return scopes;
}"""

MONEY = ("drop", "win", "hold", "handle", "theoretical-win", "edge")


def labels_twice(page) -> list[str]:
    """``["<page> · <scope>: <label> = <value 1> | <value 2>"]`` for each label shown twice in one scope."""
    found = []
    for scope in page.evaluate(READ_FIGURES):
        seen: dict[str, str] = {}
        for label, value in scope["pairs"]:
            if label in seen and (scope["scope"].startswith("table") or seen[label] != value):
                found.append(f"{page.url} · {scope['scope']}: {label} = {seen[label]} | {value}")
            seen.setdefault(label, value)
    return found


def test_no_dashboard_page_shows_a_label_twice_with_two_values(
    log_in_pit_boss,
    dashboard_server,
    demo_day,  # noqa: F811
    django_user_model,
):
    page = log_in_pit_boss()
    url = dashboard_server.url
    coup = Round.objects.filter(table__code="R1", state="settled").order_by("-number").first()
    patron = Bet.objects.values_list("patron__code", flat=True).first()
    pages = [
        ("floor", "/dashboard/"),
        *((f"table-{code}", f"/dashboard/tables/{code}/") for code in ("R1", "B1", "C1", "P1", "S1", "T1")),
        ("coup-audit", f"/dashboard/coups/{coup.id}/audit/"),
        ("patron", f"/dashboard/patrons/{patron}/"),
        ("approvals", "/dashboard/approvals/"),
        ("open", "/dashboard/open/"),
    ]
    problems = []
    for name, path in pages:
        page.goto(url + path)
        problems += labels_twice(page)
        assert_readable(page)
        page.screenshot(path=str(ARTIFACTS / f"one_label_one_value_{name}.png"), full_page=True)
    # The cage summary is the cage's, not the pit's (SHIFTS.md): read as the cage supervisor.
    grant(django_user_model.objects.create_user(username="sup1", password="floor-secret"), Role.CAGE_SUPERVISOR)
    page.context.clear_cookies()
    log_in(page, url, "sup1", app="workstations")
    page.goto(url + "/dashboard/cage/")
    problems += labels_twice(page)
    assert_readable(page)
    page.screenshot(path=str(ARTIFACTS / "one_label_one_value_cage.png"), full_page=True)
    assert problems == []
    page.context.clear_cookies()
    log_in(page, url, "boss")

    # Each card and each table page: one figure per label, each with how it is computed.
    page.goto(url + "/dashboard/")
    for card in page.locator("article.card").all():
        for name in MONEY:
            figure = card.locator(f'[data-figure="{name}"]')
            assert figure.count() == 1, (card.get_attribute("data-table"), name)
            assert len(figure.get_attribute("title") or "") > 20, (card.get_attribute("data-table"), name)
    for code in ("R1", "B1"):
        page.goto(f"{url}/dashboard/tables/{code}/")
        money = page.locator('[data-section="money"]')
        for name in MONEY:
            assert money.locator(f'[data-figure="{name}"]').count() == 1, (code, name)
