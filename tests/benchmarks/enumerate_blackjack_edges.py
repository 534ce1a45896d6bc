"""Black jack house edges of the rule sets a table may choose around the two sheets, by the exact
analysis (``games.rules.blackjack_edge.computed_edge``), written into
``games/rules/blackjack_known_edges.py`` so that no process spends the analysis's 1.4 s of CPU
on them.

Run (not collected by pytest; about 45 s of CPU on one core, measured)::

    .venv/bin/python -m tests.benchmarks.enumerate_blackjack_edges            # rewrite the module
    .venv/bin/python -m tests.benchmarks.enumerate_blackjack_edges --check    # compare, write nothing

The rule sets: the presets of sheet 000 (no hole card, doubles on 9-11, 3 split hands, no
immediate payout) and sheet 004 (hole card, double on any two cards, no split limit, the
immediate payouts), ``blackjack_table.PRESETS``, each with one option changed: 1 to 8 decks,
the hole card the other way, double on the other choice, no double after split, split to 1, 2,
3, 4 or any number of hands, blackjack paid 6:5, the immediate payouts the other way. The sheets themselves stay in
``blackjack_edge._known``. Each stored entry is the options that differ from the defaults, as
``BlackjackRules.from_dict`` reads them, and the edge (decimal fraction to 6 places, as
``blackjack_edge.blackjack_edge`` gives it). ``--check`` exits 1 if a stored edge differs from
the analysis; ``tests/unit/test_blackjack_edge.py`` recomputes some.
"""

import argparse
import sys
import time

from games.rules.blackjack import BlackjackRules
from games.rules.blackjack_edge import SHEET_EDGES, computed_edge
from games.rules.blackjack_table import PRESETS
from tests.benchmarks.generated import RULES, generated_docstring, write_module

MODULE = RULES / "blackjack_known_edges.py"
SHEETS = {
    name: {k: v for k, v in options.items() if k in BlackjackRules.__dataclass_fields__}
    for name, options in PRESETS.items()
}

SUMMARY = """Black jack house edges per initial bet of the rule sets around the two sheets (each
sheet with one option changed), as ``STORED_EDGES``: ``(options that differ from the defaults,
edge as a decimal string)``."""


def variants() -> list[dict]:
    """Option dicts (differences from the defaults), sheets excluded, each rule set once."""
    seen = set(SHEET_EDGES)
    found = []
    for base in SHEETS.values():
        base_rules = BlackjackRules.from_dict(base)
        changes: list[dict] = [{"decks": d} for d in range(1, 9)]
        changes += [
            {"hole_card": not base_rules.hole_card},
            {"double_on": "any" if base_rules.double_on.value == "9-11" else "9-11"},
            {"double_after_split": False},
            *({"max_split_hands": n} for n in (1, 2, 3, 4, None)),
            {"blackjack_pays": "6:5"},
            {"immediate_payouts": []}
            if base_rules.immediate_payouts
            else {"immediate_payouts": PRESETS["sheet_004"]["immediate_payouts"]},
        ]
        for change in changes:
            options = {**base, **change}
            rules = BlackjackRules.from_dict(options)
            if rules in seen:
                continue
            seen.add(rules)
            defaults = BlackjackRules().to_dict()
            found.append({k: v for k, v in rules.to_dict().items() if defaults[k] != v})
    return found


def render(rows: list[tuple[dict, str]]) -> str:
    """The module's text (before ``ruff format``) for ``(options, edge)`` rows."""
    body = "".join(f"    ({options!r}, {edge!r}),\n" for options, edge in rows)
    docstring = generated_docstring(SUMMARY, "tests.benchmarks.enumerate_blackjack_edges")
    return f"{docstring}\nSTORED_EDGES: list[tuple[dict, str]] = [\n{body}]\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.enumerate_blackjack_edges")
    parser.add_argument("--check", action="store_true", help="compare with the stored module, write nothing")
    args = parser.parse_args(argv)
    rows = []
    for options in variants():
        started = time.process_time()
        edge = computed_edge(BlackjackRules.from_dict(options))
        print(f"{options}: {edge} ({time.process_time() - started:.2f} s of CPU)", file=sys.stderr)
        rows.append((options, str(edge)))
    if args.check:
        from games.rules.blackjack_known_edges import STORED_EDGES

        wrong = [options for options, edge in rows if (options, edge) not in STORED_EDGES]
        wrong += [options for options, edge in STORED_EDGES if (options, edge) not in rows]
        print(f"differs: {wrong}" if wrong else "every stored edge equals the analysis")
        return 1 if wrong else 0
    write_module(MODULE, render(rows))
    print(f"wrote {MODULE}: {len(rows)} rule sets")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
