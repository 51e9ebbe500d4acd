"""Ghazi, Kamath, Kumar, Meka, Manurangsi, Zhang. On User-Level Private Convex Optimization. ICML 2023.

Lemma catalogue: ``notes/paper_002_local_deletion.md`` sections 4 and 5; errata E1-E13 in its Appendix A.
"""
