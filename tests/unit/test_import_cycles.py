"""The package's import graph has no cycles: shared types live in leaf modules.

Read from the modules' syntax trees (nothing is imported). An edge ``a -> b`` is an import in
``a`` of the module ``b`` (``from pkg import name`` counts as an import of ``pkg.name`` when that
is a module, else of ``pkg``); imports under ``if TYPE_CHECKING:`` are left out (they never run).
A package's own ``__init__`` importing its children is an edge like any other, but the implicit
import of a module's parent packages is not (it would make every package a cycle).

Module-level imports must form no cycle. An import inside a function that closes a cycle hides
one (the usual way to break a cycle without fixing it): it must be listed in ``DEFERRED`` with
the reason it stays.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "dpaudit"

# (importing module, imported module): function-level imports allowed to close a cycle, each with
# the reason it stays.
DEFERRED: dict[tuple[str, str], str] = {
    ("dpaudit.userlevel.transcript", "dpaudit.userlevel.transcript_profile"):
        "WorstPair.profiled() builds a ProfiledTranscript, whose module loads dpaudit.exact (python-flint); "
        "importing a paper's worst pairs does not load the exact calculators. To untangle: WorstPair in a "
        "module above transcript_profile, once the import cost of loading dpaudit.exact there is measured.",
}


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[tuple[str, bool]]:
    """``(imported module, at module level)`` for every import of a dpaudit module in ``path``."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[tuple[str, bool]] = set()

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit_else(child, top)
                continue
            inner = top and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.update((a.name, top) for a in child.names if a.name in modules)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = ".".join(package[: len(package) - child.level + 1] + ([child.module] if child.module else []))
                else:
                    base = child.module or ""
                for alias in child.names:
                    target = f"{base}.{alias.name}"
                    target = target if target in modules else base
                    if target in modules:
                        found.add((target, top))
            visit(child, inner)

    def visit_else(node: ast.If, top: bool) -> None:
        for child in node.orelse:
            visit(ast.Module(body=[child], type_ignores=[]), top)

    visit(ast.parse(path.read_text(encoding="utf-8")), True)
    return found


def import_graph() -> dict[str, set[tuple[str, bool]]]:
    modules = _module_names()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the directed graph (its nodes, first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def search(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt == node:
                continue
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := search(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (cycle := search(start)):
            return cycle
    return None


def test_find_cycle_finds_a_cycle_and_only_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"a"}}) is None  # a module importing itself is no cycle


def test_module_level_imports_form_no_cycle() -> None:
    graph = import_graph()
    cycle = find_cycle({m: {t for t, top in targets if top} for m, targets in graph.items()})
    assert cycle is None, "import cycle at module level: " + " -> ".join(cycle or [])


def test_no_function_level_import_hides_a_cycle() -> None:
    graph = import_graph()
    edges = {m: {t for t, top in targets if top or (m, t) not in DEFERRED} for m, targets in graph.items()}
    cycle = find_cycle(edges)
    hidden = [(a, b) for a, b in zip(cycle or [], (cycle or [])[1:], strict=False) if (b, True) not in graph[a]]
    assert cycle is None, ("import cycle closed by an import inside a function (move the shared names to a leaf "
                           f"module, or list it in DEFERRED with a reason): {' -> '.join(cycle or [])}; "
                           f"function-level: {hidden}")


def test_deferred_imports_still_exist() -> None:
    graph = import_graph()
    stale = [pair for pair in DEFERRED if (pair[1], False) not in graph.get(pair[0], set())]
    assert not stale, f"DEFERRED lists imports that are gone: {stale}"
