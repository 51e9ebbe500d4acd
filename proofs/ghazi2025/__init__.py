"""Ghazi, Kumar, Liu, Manurangsi. Linear-Time User-Level DP-SCO via Robust Statistics. 2025.

Lemma catalogue: ``notes/paper_000_robust_stats.md`` sections 2.7, 2.8, 4 and 5, and its errata summary.
"""
