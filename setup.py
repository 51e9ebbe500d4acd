"""Package list for setuptools (the metadata is in pyproject.toml).

The built-in lemma checks live in the repository folder ``proofs/`` (the spec's layout: everything
about a paper is under its name in ``dpaudit/userlevel``, ``dpaudit/bounds`` and ``proofs/``) but
are installed as ``dpaudit.proofs``, so that nothing is installed under a top-level name that could
clash with a user's own ``proofs`` package. setuptools' declarative configuration cannot discover
packages under a remapped folder, hence this file.
"""

from setuptools import find_packages, setup

BUILTIN_CHECKS = ["dpaudit.proofs", *(f"dpaudit.proofs.{name}" for name in find_packages("proofs"))]

setup(
    packages=[*find_packages(include=["dpaudit", "dpaudit.*"]), *BUILTIN_CHECKS],
    package_dir={"dpaudit.proofs": "proofs"},
)
