"""Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh. Learning with User-Level Privacy. NeurIPS 2021.

Lemma catalogue: the theorems and lemmas of Levy et al. (2021); checks L1-L23 as listed in
``docs/papers/levy2021.md``.
"""
