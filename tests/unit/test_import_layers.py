"""The layers of ``engram`` as its imports draw them, read from the source (nothing is imported).

Every import counts where it runs: at module level or inside a function (a deferred import still
ties the two modules together), but not under ``if TYPE_CHECKING:`` (it never runs). The rules:

1. Only entry points import the composition root (``engram.bootstrap``): the Lambda handlers'
   decorator stack, the API's app factory and the migration command. Everything below them is
   handed a ``Dependencies`` (``engram.dependencies``) and never asks where it came from.
2. No circle: no product module reaches itself through its imports, whatever the path.
3. The domain is pure: it imports nothing of ``engram`` but the domain and ``errors``.
4. Ports and ``Dependencies`` name the domain's types only (and the ``Runtime`` a process holds,
   which imports nothing of ``engram`` but the base); adapters import no use case, and no use
   case or adapter imports the HTTP layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "layers" / "engram" / "engram"
ENTRY_POINTS = {"engram.bootstrap", "engram.handlers", "engram.api.app", "engram.migrate"}
BASE = ("engram.domain", "engram.errors", "engram.config")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("engram", *path.relative_to(PACKAGE).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = _modules()


def _runs(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The imports that run, at any depth, leaving out ``if TYPE_CHECKING:`` blocks."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _known(name: str) -> str | None:
    """The ``engram`` module ``name`` is, or is inside (``engram.x.Thing`` is ``engram.x``)."""
    while name not in MODULES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in MODULES else None


def imports_of(module: str) -> set[str]:
    """The ``engram`` modules ``module`` imports (``from .pkg import sub`` is ``pkg.sub`` when
    that is a module, the package otherwise)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = set()
    for node in _runs(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        out |= {known for target in targets if target.startswith("engram") and (known := _known(target))}
    out.discard(module)
    return out


GRAPH = {module: imports_of(module) for module in MODULES}


def _under(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative: a deep import chain must not hit the recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_the_walk_sees_the_package():
    assert {"engram.dependencies", "engram.service.chain", "engram.service.ingest.plan",
            "engram.service.recall.plan", "engram.domain.model"} <= MODULES.keys()
    assert "engram.dependencies" in GRAPH["engram.service.users"]
    assert {"engram.service.chain", "engram.service.ingest.route"} <= GRAPH["engram.service.ingest.plan"]


def test_only_entry_points_import_the_composition_root():
    importers = sorted(m for m, targets in GRAPH.items() if "engram.bootstrap" in targets)
    assert [m for m in importers if m not in ENTRY_POINTS] == []


def test_no_import_circle_between_product_modules():
    assert cycles(GRAPH) == []


def test_the_domain_imports_only_the_domain_and_errors():
    assert {m: sorted(t for t in targets if not _under(t, "engram.domain", "engram.errors"))
            for m, targets in GRAPH.items() if _under(m, "engram.domain")} == {
        m: [] for m in GRAPH if _under(m, "engram.domain")}


# The archive's Parquet files are written and read by the archival use case itself: the format is
# an adapter's (pyarrow, loaded on first use), the store it goes to is behind ``ArchiveStore``.
SERVICE_USES = ("engram.adapters.aws.parquet",)


@pytest.mark.parametrize(("layer", "may_import"), [
    ("engram.ports", BASE),
    ("engram.runtime", BASE),
    ("engram.dependencies", (*BASE, "engram.ports", "engram.runtime")),
    ("engram.adapters", (*BASE, "engram.ports", "engram.adapters")),
    ("engram.service", (*BASE, "engram.ports", "engram.dependencies", "engram.runtime", "engram.service",
                        *SERVICE_USES)),
])
def test_each_layer_imports_only_what_is_below_it(layer, may_import):
    # ``engram`` itself is its version string, which anything may read.
    beyond = {m: sorted(t for t in targets if t != "engram" and not (_under(t, *may_import) and t not in ENTRY_POINTS))
              for m, targets in GRAPH.items() if _under(m, layer)}
    assert {m: t for m, t in beyond.items() if t} == {}


# -- the walk itself, on graphs whose answer is known --------------------------------------------

def test_a_circle_is_found_however_long():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c", "a"}}) == [["a", "b"], ["c", "d"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_deferred_imports_count_and_type_checking_ones_do_not():
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .x import A\n"
                     "def f():\n    from .y import B\n")
    names = sorted(n.module for n in _runs(tree) if isinstance(n, ast.ImportFrom))
    assert names == ["typing", "y"]
