"""Lowy, Liu, Asi. Faster Algorithms for User-Level Private Stochastic Convex Optimization. 2024.

Lemma catalogue: the theorems and lemmas of Lowy, Liu and Asi (2024); findings F1-F7 as listed in
``docs/papers/lowy2024.md``.
"""
