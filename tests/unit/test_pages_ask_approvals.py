"""The pages never run an act that needs a second signature on their own: every act of
``approvals.acts.ACTS`` reaches the ledger from a page only through ``approval_request``
(as from the API), so a page cannot skip the runner's, dealer's or supervisor's signature."""

import ast
from pathlib import Path

from approvals.acts import ACTS

ROOT = Path(__file__).resolve().parents[2]
PAGE_PACKAGES = ("workstations", "dashboard")
# The services the acts run (approvals/acts.py): a page importing one could call it directly.
ACT_SERVICES = {
    "slip_issue",
    "slip_void",
    "slip_reverse",
    "slip_request",
    "round_reverse",
    "round_void",
    "drop_count",
    "drop_count_reverse",
    "table_open",
    "table_close",
    "marker_void",
}


def imported_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            names |= {alias.name for alias in node.names}
    return names


def test_every_act_kind_is_covered_by_the_guarded_services():
    assert {"slip_issue", "slip_void", "slip_reverse", "round_reverse", "drop_count"} <= set(ACTS)


def test_no_page_module_imports_an_act_service():
    offenders = [
        f"{path.relative_to(ROOT)}: {sorted(imported_names(path) & ACT_SERVICES)}"
        for package in PAGE_PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if imported_names(path) & ACT_SERVICES
    ]
    assert offenders == []
