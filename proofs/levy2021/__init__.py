"""Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh. Learning with User-Level Privacy. NeurIPS 2021.

Lemma catalogue: ``notes/paper_004_levy.md`` sections 4 and 5 (L1-L23).
"""
