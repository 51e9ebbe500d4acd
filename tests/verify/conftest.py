"""Configuration of the dpaudit.verify tests.

Under mutation testing (mutmut sets ``MUTANT_UNDER_TEST``: ``stats`` while it records which tests run which
function, then a mutant's name) every test decides afresh: the kernel memoises its decisions
(``dpaudit.verify.kernel.core._decide_cached``), so a test that re-reads a decision an earlier test made never
runs the kernel's translation and evaluation itself. mutmut would then not associate it with them, and a mutant
that only this test detects would survive. Outside mutation testing the memo is kept (it saves minutes).
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _kernel_decides_afresh_under_mutation_testing():
    if os.environ.get("MUTANT_UNDER_TEST"):
        from dpaudit.verify.kernel.core import _decide_cached

        _decide_cached.cache_clear()
    yield


@pytest.fixture
def fresh_kernel():
    """Each test of the kernel itself decides afresh: the memo would hide a change of the code under test."""
    from dpaudit.verify.kernel.core import _decide_cached

    _decide_cached.cache_clear()
    yield
