"""The architecture's guard: imports point one way, bottom to top (docs/architecture.md).

Every ``import`` in the product's packages is read with ``ast`` (those inside functions too: a
lazy import is a dependency all the same; ``importlib.import_module``, ``__import__`` and
``apps.get_model`` as well) and refused when it reaches a layer above its own, or a peer of
its own layer. ``basis`` is the pure bottom (the standard library only: money, the rules'
errors, which card events hide a card); ``games.rules`` lies in the games layer and is pure
besides (the standard library and ``basis``). A top-level package no layer names is refused too.

Comments and strings (docstrings, help texts) of the project's own Python say why, never which
tracker issue: a reader cannot look an issue number up, and it ages; the history is in git.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Bottom to top. A package may import its own layer's package and any layer below; packages
# that share a layer are peers and never import each other.
LAYERS: list[tuple[str, ...]] = [
    ("basis",),
    ("ledger",),
    ("core",),
    ("staff",),
    ("patrons",),
    ("games",),
    ("cashier",),
    ("approvals",),
    ("audit", "dashboard", "compliance"),
    ("workstations",),
    ("demo",),
    ("casino",),
]
PACKAGES = [name for layer in LAYERS for name in layer]


# Pure packages: the standard library and the packages named here only. ``games.rules`` is
# inside ``games`` (its layer: nothing below games may import it) and pure besides.
PURE: dict[str, tuple[str, ...]] = {"basis": (), "games.rules": ("basis",)}


def purity(module: str) -> str | None:
    """The pure package ``module`` lies in (``PURE``), or None."""
    return next((name for name in PURE if module == name or module.startswith(name + ".")), None)


def owner(module: str) -> str | None:
    """The package of ``module`` (the longest of PACKAGES it is in), or None for third parties."""
    best = None
    for name in PACKAGES:
        if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best)):
            best = name
    return best


def layer_of(package: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if package in layer)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# Imports the ``import`` statement does not show: ``importlib.import_module("x.y")``,
# ``__import__("x")``, and a model fetched by its app's label (``apps.get_model("x", "M")``,
# ``get_model("x.M")``: the app's models). With a name the guard cannot read (not a literal)
# the import is refused as such: a dependency nobody can check is not one to keep.
DYNAMIC_IMPORTS = {"import_module", "__import__"}
MODEL_LOOKUPS = {"get_model"}
UNREADABLE = "<a name computed at run time>"


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def dynamic_import(node: ast.Call) -> str | None:
    """The module a call imports (``UNREADABLE`` when its name is not a literal), or None when
    it imports nothing."""
    called = _called(node)
    if called in DYNAMIC_IMPORTS:
        return _literal(node.args[0] if node.args else None) or UNREADABLE
    if called in MODEL_LOOKUPS:
        label = _literal(node.args[0] if node.args else None)
        if label is None:
            return UNREADABLE
        return f"{label.partition('.')[0]}.models"
    return None


def imports_of(path: Path, root: Path) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in ``path``, relative ones resolved; ``from X
    import y`` yields ``X.y`` too, so importing a submodule by name counts as importing it.
    Dynamic imports (``dynamic_import``) count as imports."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and (target := dynamic_import(node)) is not None:
            found.append((node.lineno, target))
    return found


def unknown_packages(root: Path) -> list[str]:
    """Each top-level package of the project (a folder with ``__init__.py``) that no layer
    names: its imports would go unread. ``tests`` is not product code."""
    known = {name.split(".")[0] for name in PACKAGES} | {"tests"}
    return [
        f"{folder.name}/ is a package no layer names (tests/unit/test_architecture.py LAYERS)"
        for folder in sorted(root.iterdir())
        if (folder / "__init__.py").is_file() and folder.name not in known
    ]


def violations(root: Path) -> list[str]:
    """Each import of the tree under ``root`` that runs upward, sideways, or out of the pure
    rules, that cannot be read, or that lies in a package no layer names."""
    found = unknown_packages(root)
    for top in {name.split(".")[0] for name in PACKAGES}:
        for path in sorted((root / top).rglob("*.py")):
            here = owner(module_name(path, root))
            if here is None:
                continue
            pure = purity(module_name(path, root))
            for line, target in imports_of(path, root):
                where = f"{path.relative_to(root)}:{line}"
                if target == UNREADABLE:
                    found.append(f"{where} imports {UNREADABLE}: the guard cannot read it")
                    continue
                there = owner(target)
                if pure is not None:
                    allowed = (pure, *PURE[pure])
                    top_level = target.split(".")[0]
                    inside = any(target == name or target.startswith(name + ".") for name in allowed)
                    if not inside and (there is not None or top_level not in sys.stdlib_module_names):
                        kept = " and ".join(("the standard library", *PURE[pure]))
                        found.append(f"{where} imports {target}: {pure} is pure ({kept} only)")
                    continue
                if there is None or there == here:
                    continue
                if layer_of(there) > layer_of(here):
                    found.append(f"{where} imports {target}: {there} is above {here}")
                elif layer_of(there) == layer_of(here):
                    found.append(f"{where} imports {target}: {there} and {here} are peers")
    return found


def module_circles(root: Path) -> list[list[str]]:
    """Each set of two or more modules of the tree under ``root`` that import one another round
    a circle (a strongly connected component of the import graph, function-level imports
    included), each sorted: one of them cannot be read or changed without the others."""
    graph: dict[str, set[str]] = {}
    for top in {name.split(".")[0] for name in PACKAGES}:
        for path in sorted((root / top).rglob("*.py")):
            if "migrations" not in path.parts:
                graph[module_name(path, root)] = {target for _, target in imports_of(path, root)}
    known = set(graph)

    def module_of(target: str) -> str | None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    edges = {name: {m for t in targets if (m := module_of(t)) not in (None, name)} for name, targets in graph.items()}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(name: str) -> None:  # Tarjan's strongly connected components
        order[name] = low[name] = len(order)
        stack.append(name)
        for other in edges[name]:
            if other not in order:
                visit(other)
                low[name] = min(low[name], low[other])
            elif other in stack:
                low[name] = min(low[name], order[other])
        if low[name] == order[name]:
            members = []
            while True:
                member = stack.pop()
                members.append(member)
                if member == name:
                    break
            if len(members) > 1:
                circles.append(sorted(members))

    for name in sorted(edges):
        if name not in order:
            visit(name)
    return sorted(circles)


def test_no_modules_import_one_another_round_a_circle():
    circles = module_circles(ROOT)
    assert circles == [], "modules importing one another:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_circle_guard_finds_a_circle_through_a_function_level_import(tmp_path):
    write(
        tmp_path,
        {
            "ledger/__init__.py": "",
            "ledger/a.py": "from .b import x\n",
            "ledger/b.py": "def x():\n    from ledger.c import y\n",
            "ledger/c.py": "import ledger.a\n",
            "ledger/d.py": "from ledger.a import x\n",
        },
    )
    assert module_circles(tmp_path) == [["ledger.a", "ledger.b", "ledger.c"]]


def test_no_import_runs_upward_or_between_peers():
    found = violations(ROOT)
    assert not found, "imports against the layers (docs/architecture.md):\n" + "\n".join(found)


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"games/services/x.py": "def f():\n    from cashier.models import Slip\n"},
            "games/services/x.py:2 imports cashier.models: cashier is above games",
        ),
        (
            {"ledger/x.py": "from ..core import ids\n"},
            "ledger/x.py:1 imports core: core is above ledger",
        ),
        (
            {"dashboard/x.py": "import audit.api\n"},
            "dashboard/x.py:1 imports audit.api: audit and dashboard are peers",
        ),
        (
            {"games/rules/x.py": "from django.db import models\n"},
            "games/rules/x.py:1 imports django.db: games.rules is pure (the standard library and basis only)",
        ),
        (
            {"games/rules/x.py": "from games.models import Bet\n"},
            "games/rules/x.py:1 imports games.models: games.rules is pure (the standard library and basis only)",
        ),
        (
            {"basis/x.py": "from games.rules.cards import Card\n"},
            "basis/x.py:1 imports games.rules.cards: basis is pure (the standard library only)",
        ),
        (
            {"ledger/x.py": "from games.rules import event_words\n"},
            "ledger/x.py:1 imports games.rules: games is above ledger",
        ),
        (
            {"patrons/services/x.py": "from . import y\nfrom ...games import models\n"},
            "patrons/services/x.py:2 imports games: games is above patrons",
        ),
        (
            {"ledger/x.py": "import importlib\nseal = importlib.import_module('cashier.services')\n"},
            "ledger/x.py:2 imports cashier.services: cashier is above ledger",
        ),
        (
            {"core/x.py": "def f():\n    return __import__('dashboard.selectors')\n"},
            "core/x.py:2 imports dashboard.selectors: dashboard is above core",
        ),
        (
            {"games/x.py": "from django.apps import apps\nSlip = apps.get_model('cashier', 'Slip')\n"},
            "games/x.py:2 imports cashier.models: cashier is above games",
        ),
        (
            {"staff/x.py": "from django.apps import apps\nM = apps.get_model('approvals.Approval')\n"},
            "staff/x.py:2 imports approvals.models: approvals is above staff",
        ),
        (
            {"ledger/x.py": "import importlib\nname = 'games'\nm = importlib.import_module(name)\n"},
            f"ledger/x.py:3 imports {UNREADABLE}: the guard cannot read it",
        ),
        (
            {"reports/__init__.py": "", "reports/x.py": "from workstations import views\n"},
            "reports/ is a package no layer names (tests/unit/test_architecture.py LAYERS)",
        ),
    ],
)
def test_the_guard_names_each_wrong_import(tmp_path, files, expected):
    write(tmp_path, files)
    assert expected in violations(tmp_path)


def test_the_guard_lets_downward_and_same_package_imports_through(tmp_path):
    write(
        tmp_path,
        {
            "cashier/services/x.py": (
                "from games.models import Table\nfrom ..models import Slip\nfrom ledger import store\n"
            ),
            "games/rules/x.py": (
                "from fractions import Fraction\nfrom .cards import Card\nfrom basis.money import format_cents\n"
            ),
            "basis/y.py": "from decimal import Decimal\nfrom .money import format_cents\n",
            "ledger/y.py": "from basis.errors import RuleError\n",
            "casino/urls.py": "from dashboard import views\nimport demo\n",
            "patrons/migrations/0002_x.py": "def f(apps):\n    apps.get_model('auth', 'Group')\n",
            "workstations/x.py": "import importlib\nimportlib.import_module('games.models')\n",
        },
    )
    assert violations(tmp_path) == []


# An issue number as a reference: the word, singular or plural, then a number (a hash or a
# hyphen before it or not), or a bare hash number in brackets. Spelled in parts so that this
# file does not read as one.
ISSUE_WORD = "[Ii]" + "ssues?"
ISSUE_NUMBER = re.compile(r"\b" + ISSUE_WORD + r"[ -]#?\d+|\(#\d+\)")
# Applied migrations and dated measurement records are history: they keep the words of their day.
HISTORY_DIRS = {"migrations", "__pycache__"}
HISTORY_TREES = ("tests/benchmarks/results/",)


def issue_mentions(root: Path) -> list[str]:
    """``path:line: text`` of each comment or string token of the project's Python that names an
    issue number."""
    tops = sorted({name.split(".")[0] for name in PACKAGES} | {"tests", "deploy"})
    paths = sorted(root.glob("*.py")) + [path for top in tops for path in sorted((root / top).rglob("*.py"))]
    found = []
    for path in paths:
        relative = path.relative_to(root).as_posix()
        if HISTORY_DIRS & set(path.relative_to(root).parts) or relative.startswith(HISTORY_TREES):
            continue
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            if token.type not in (tokenize.COMMENT, tokenize.STRING):
                continue
            for match in ISSUE_NUMBER.finditer(token.string):
                line = token.start[0] + token.string.count("\n", 0, match.start())
                found.append(f"{relative}:{line}: {match.group()}")
    return found


def test_no_comment_or_docstring_names_an_issue_number():
    found = issue_mentions(ROOT)
    assert not found, "say why, not which issue (the history is in git):\n" + "\n".join(found)


def test_the_issue_guard_reads_comments_and_strings_and_skips_history(tmp_path):
    issue, bracket = "iss" + "ue", "(" + "#7)"
    write(
        tmp_path,
        {
            "ledger/a.py": f"x = 1  # a third of verify ({issue} 11)\n",
            "ledger/b.py": f'"""Signed with Ed25519.\n\n{issue.title()} 21, fault 6: a cut tail."""\n',
            "tests/unit/c.py": f'HELP = "seal key of exports of before {issue} #21"\n',
            "cashier/d.py": f"# fill and credit slips {bracket}\n",
            "tests/benchmarks/results/f.py": f"# {bracket}\n",
            "ledger/migrations/0001_x.py": f"# ({issue} 11)\n",
            "casino/e.py": "issue = 3\nissues_2 = issue - 1  # the cage issues chips\n",
        },
    )
    assert issue_mentions(tmp_path) == [
        f"cashier/d.py:1: {bracket}",
        f"ledger/a.py:1: {issue} 11",
        f"ledger/b.py:3: {issue.title()} 21",
        f"tests/unit/c.py:1: {issue} #21",
    ]


def issue_mentions_in_text(root: Path) -> list[str]:
    """``path:line: text`` of each issue number in the project's templates, SQL and documents
    (read whole: they have no comment syntax of one kind)."""
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        parts = set(path.relative_to(root).parts)
        if path.suffix not in (".html", ".sql", ".md") or not path.is_file():
            continue
        if parts & {".venv", "node_modules", "var", ".git"} or relative.startswith(HISTORY_TREES):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            found.extend(f"{relative}:{number}: {match.group()}" for match in ISSUE_NUMBER.finditer(line))
    return found


def test_no_template_sql_or_document_names_an_issue_number():
    found = issue_mentions_in_text(ROOT)
    assert not found, "say why, not which issue (the history is in git):\n" + "\n".join(found)


def test_the_text_guard_reads_templates_sql_and_documents(tmp_path):
    issue = "iss" + "ue"
    write(
        tmp_path,
        {
            "docs/a.md": f"# Outage mode\n\nAs {issue} 39 asks.\n",
            "deploy/b.sql": f"-- ({issue} #36) pinned search path\n",
            "dashboard/templates/c.html": "<p>the cage issues chips: 3 plaques</p>\n",
            "tests/benchmarks/results/d.md": f"{issue} 7\n",
        },
    )
    assert issue_mentions_in_text(tmp_path) == [f"deploy/b.sql:1: {issue} #36", f"docs/a.md:3: {issue} 39"]
