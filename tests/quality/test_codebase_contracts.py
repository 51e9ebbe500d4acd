"""Contracts of the code base itself, checked on the source tree.

* No product module is named like a test module: pytest collects ``dpaudit/`` (for its doctests)
  with its default ``python_files`` patterns ``test_*.py`` and ``*_test.py``, so such a module would
  be run as a test module.
* The packages ``pyproject.toml`` lists (setuptools cannot discover packages under ``proofs/``,
  which is installed as ``dpaudit.proofs``) are exactly the folders holding an ``__init__.py``.
* The error contract of :mod:`dpaudit.errors`: :class:`~dpaudit.errors.DPAuditError` is the root of
  every exception dpaudit raises. No ``raise`` of a builtin exception (or of one imported from
  another library), and no exception class that does not derive from ``DPAuditError``, except the
  protocol cases below and the allow-list, each with its reason.
"""

from __future__ import annotations

import ast
import builtins
import fnmatch
import functools
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("dpaudit", "proofs")


def _product_modules() -> list[Path]:
    return sorted(path for folder in PRODUCT for path in (ROOT / folder).rglob("*.py") if "__pycache__" not in path.parts)


@functools.cache
def _tree(path: Path) -> ast.Module:
    """Parsed once for all the tests of this module."""
    return ast.parse(path.read_text(), filename=str(path))


def test_no_product_module_is_named_like_a_test_module():
    collected = [str(path.relative_to(ROOT)) for path in _product_modules()
                 if any(fnmatch.fnmatch(path.name, pattern) for pattern in ("test_*.py", "*_test.py"))]
    assert not collected, f"pytest would collect these product modules as tests; rename them: {collected}"


def test_pyproject_lists_every_package_and_only_those():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {"dpaudit.proofs": "proofs"}
    on_disk = {"dpaudit." * (folder == "proofs") + ".".join(init.parent.relative_to(ROOT).parts)
               for folder in PRODUCT for init in (ROOT / folder).rglob("__init__.py")}
    listed = set(config["packages"])
    assert listed == on_disk, (f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}; "
                               f"remove: {sorted(listed - on_disk)}")


BUILTIN_EXCEPTIONS = {name for name, value in vars(builtins).items()
                      if isinstance(value, type) and issubclass(value, BaseException)}
BUILTIN_WARNINGS = {name for name in BUILTIN_EXCEPTIONS if issubclass(getattr(builtins, name), Warning)}
#: Builtin exceptions a special method must raise for Python's protocols to work.
PROTOCOL_RAISES = {"__getattr__": {"AttributeError"}, "__getitem__": {"IndexError", "KeyError"},
                   "__next__": {"StopIteration"}}
#: (path, function or class, exception) -> why it is not a DPAuditError. Keep it short.
ALLOWED_RAISES: dict[tuple[str, str, str], str] = {}
ALLOWED_CLASSES: dict[tuple[str, str], str] = {
    ("dpaudit/verify/runner.py", "CheckTimeout"):
        "a BaseException on purpose: raised inside a check when its time is up, it must pass through the "
        "`except Exception` of the code under check; it never leaves dpaudit.verify.runner",
}


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _enclosing_function(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node
    return None


def _is_abstract_hook(function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
    """The whole body is ``raise NotImplementedError`` (after an optional docstring): a method to override."""
    if function is None:
        return False
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def _foreign_names(tree: ast.Module) -> dict[str, str]:
    """Names a module imports from outside dpaudit (``from scipy.x import Y``), mapped to their module."""
    return {alias.asname or alias.name: node.module or "" for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0 and not (node.module or "").startswith("dpaudit")
            for alias in node.names}


def _bad_raises(path: Path) -> list[str]:
    tree = _tree(path)
    parents, foreign = _parents(tree), _foreign_names(tree)
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    where = str(path.relative_to(ROOT))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if not isinstance(target, ast.Name) or target.id in defined:
            continue
        name = target.id
        if name not in BUILTIN_EXCEPTIONS and not (name in foreign and name[:1].isupper()):
            continue
        function = _enclosing_function(node, parents)
        owner = function.name if function is not None else "<module>"
        if name in PROTOCOL_RAISES.get(owner, ()):
            continue
        if name == "NotImplementedError" and _is_abstract_hook(function):
            continue
        if (where, owner, name) in ALLOWED_RAISES:
            continue
        found.append(f"{where}:{node.lineno} in {owner}: raise {name}")
    return found


def test_every_raise_is_a_dpaudit_error():
    found = [bad for path in _product_modules() for bad in _bad_raises(path)]
    assert not found, ("raise a dpaudit.errors exception instead (InvalidArgument through dpaudit._validation for a "
                       "bad argument; each also subclasses the builtin a user may catch): " + "; ".join(found))


def _base_names(node: ast.ClassDef) -> list[str]:
    return [base.id if isinstance(base, ast.Name) else base.attr for base in node.bases
            if isinstance(base, ast.Name | ast.Attribute)]


def test_every_exception_class_derives_from_dpaudit_error():
    classes = {}  # name -> (path, base names); class names are unique enough across the package
    for path in _product_modules():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                classes[node.name] = (str(path.relative_to(ROOT)), _base_names(node))

    def derives(name: str, roots: set[str], seen: frozenset[str] = frozenset()) -> bool:
        if name in roots:
            return True
        if name not in classes or name in seen:
            return False
        return any(derives(base, roots, seen | {name}) for base in classes[name][1])

    exceptions = [name for name in classes if name != "DPAuditError" and derives(name, BUILTIN_EXCEPTIONS)]
    assert {"InvalidArgument", "Violation", "RateError", "CaseSplitError"} <= set(exceptions)  # the walk sees them
    outside = [f"{classes[name][0]}: {name}" for name in exceptions
               if not derives(name, {"DPAuditError", *BUILTIN_WARNINGS}) and (classes[name][0], name) not in ALLOWED_CLASSES]
    assert not outside, f"derive these from dpaudit.errors.DPAuditError (and the builtin users may catch): {outside}"
