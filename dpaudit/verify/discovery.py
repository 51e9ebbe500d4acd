"""Finding checks: modules that define ``CHECK`` or ``CHECKS``, in a package or a user's directory.

``CHECK`` is one :class:`~dpaudit.verify.LemmaCheck`, ``CHECKS`` a tuple of them; the package is an
installed one.

Examples
--------
>>> import pathlib, tempfile, textwrap
>>> from dpaudit.verify.discovery import checks_in_path
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "square.py").write_text(textwrap.dedent('''
...     import sympy as sp
...     from dpaudit.verify import LemmaCheck, Proof, Verdict
...     def _run():
...         proof = Proof("mine/square")
...         proof.nonneg("x^2 >= 0", sp.Symbol("x", real=True) ** 2)
...         return proof.result()
...     CHECK = LemmaCheck(name="mine/square", source="my notes, eq. 1", statement="x^2 >= 0 for real x",
...                        expected=Verdict.PROVED, check=_run)
... '''))
>>> [c.name for c in checks_in_path(folder)]
['mine/square']
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType

from dpaudit.errors import ArgumentTypeError, InvalidArgument, PathNotFound, UnknownName
from dpaudit.verify.lemma import LemmaCheck

__all__ = ["CheckLoadError", "checks_in_module", "checks_in_package", "checks_in_path", "unique_checks"]


class CheckLoadError(InvalidArgument):
    """A module under ``dpaudit prove --path`` could not be loaded; the message names the file and the cause in one line."""


def _cause(exc: BaseException) -> str:
    """``exc`` in one line: its type, message and, for a syntax error, where."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r}) while being imported"
    text = " ".join(str(exc).split()) or "(no message)"
    if isinstance(exc, SyntaxError) and exc.lineno is not None and "line" not in text:
        text += f" (line {exc.lineno})"
    return f"{type(exc).__name__}: {text}"


def checks_in_module(module: ModuleType, *, required: bool = True) -> tuple[LemmaCheck, ...]:
    """The checks a module defines (``CHECK``, then the entries of ``CHECKS``).

    Raises
    ------
    LookupError
        If ``required`` and the module defines neither.
    TypeError
        If an entry is not a :class:`LemmaCheck`.
    """
    found: list[LemmaCheck] = []
    if hasattr(module, "CHECK"):
        found.append(module.CHECK)
    found.extend(getattr(module, "CHECKS", ()))
    if not found and required:
        raise UnknownName(f"{module.__name__} defines neither CHECK nor CHECKS")
    for check in found:
        if not isinstance(check, LemmaCheck):
            raise ArgumentTypeError(f"{module.__name__}: {check!r} is not a dpaudit.verify.LemmaCheck")
    return tuple(found)


def checks_in_package(package: str, subpackages: Sequence[str]) -> tuple[LemmaCheck, ...]:
    """Every check in the modules of ``package.<sub>`` (names starting with ``_`` are helpers), in a fixed order."""
    checks: list[LemmaCheck] = []
    for sub in subpackages:
        pkg = importlib.import_module(f"{package}.{sub}")
        names = sorted(info.name for info in pkgutil.iter_modules(pkg.__path__) if not info.name.startswith("_"))
        for name in names:
            checks.extend(checks_in_module(importlib.import_module(f"{package}.{sub}.{name}")))
    return unique_checks(checks)


def _module_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    files = []
    for file in sorted(path.rglob("*.py")):
        parts = file.relative_to(path).parts
        if any(p.startswith(("_", ".")) for p in parts):
            continue
        files.append(file)
    return files


def checks_in_path(path: str | Path) -> tuple[LemmaCheck, ...]:
    """Every check defined by the Python files under ``path`` (a directory, searched recursively, or one ``.py`` file).

    Files and folders whose names start with ``_`` or ``.`` are skipped, and so are modules that
    define neither ``CHECK`` nor ``CHECKS`` (helpers).

    Each file is imported under a private module name, with its directory first on ``sys.path``
    while it is imported (so it can import its sibling helpers).

    Raises
    ------
    dpaudit.errors.PathNotFound
        If ``path`` does not exist.
    CheckLoadError
        If a module cannot be imported (a syntax error, an exception or ``sys.exit`` at import), defines a ``CHECK``
        or ``CHECKS`` entry that is not a LemmaCheck, or two checks under ``path`` share a name.
    """
    root = Path(path).resolve()
    if not root.exists():
        raise PathNotFound(f"dpaudit prove --path: {path} does not exist")
    tag = hashlib.sha256(str(root).encode()).hexdigest()[:10]
    checks: list[LemmaCheck] = []
    for file in _module_files(root):
        name = f"_dpaudit_user_checks_{tag}." + ".".join(file.relative_to(root if root.is_dir() else root.parent).with_suffix("").parts)
        spec = importlib.util.spec_from_file_location(name, file)
        if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
            continue
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(file.parent))
        try:
            sys.modules[name] = module
            spec.loader.exec_module(module)
            checks.extend(checks_in_module(module, required=False))
        except (Exception, SystemExit) as exc:  # the user's module: one line naming the file, never a traceback
            sys.modules.pop(name, None)
            raise CheckLoadError(f"dpaudit prove --path: cannot load {file}: {_cause(exc)}") from exc
        finally:
            sys.path.remove(str(file.parent))
    try:
        return unique_checks(checks)
    except InvalidArgument as exc:
        raise CheckLoadError(f"dpaudit prove --path: {path}: {exc}") from exc


def unique_checks(checks: Iterable[LemmaCheck]) -> tuple[LemmaCheck, ...]:
    """``checks`` as a tuple, after checking that names are unique and siblings are present.

    Raises
    ------
    ValueError
        On a duplicate name, or a ``sibling`` that names no check in the collection.
    """
    checks = tuple(checks)
    seen: dict[str, LemmaCheck] = {}
    for check in checks:
        if check.name in seen:
            raise InvalidArgument(f"duplicate check name {check.name!r}")
        seen[check.name] = check
    for check in checks:
        if check.sibling is not None and check.sibling not in seen:
            raise InvalidArgument(f"{check.name!r} names a sibling {check.sibling!r} that is not registered")
    return checks
