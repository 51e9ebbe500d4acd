"""Lowy, Liu, Asi. Faster Algorithms for User-Level Private Stochastic Convex Optimization. 2024.

Lemma catalogue: ``notes/paper_003_faster.md`` sections 4 and 5; findings F1-F7.
"""
