"""Ghazi, Kamath, Kumar, Meka, Manurangsi, Zhang. On User-Level Private Convex Optimization. ICML 2023.

Lemma catalogue: the theorems and lemmas of Ghazi et al. (2023); errata E1-E13 as listed in
``docs/papers/ghazi2023.md``.
"""
