"""Ghazi, Kumar, Liu, Manurangsi. Linear-Time User-Level DP-SCO via Robust Statistics. 2025.

Lemma catalogue: the theorems and lemmas of Ghazi et al. (2025); readings A1-A14 as listed in
``docs/papers/ghazi2025.md``.
"""
