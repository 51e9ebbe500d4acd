"""Facts shared by several papers (clamping, projections, scores, the Gaussian mechanism).

Each is counted once and attributed to every paper that uses it (``LemmaCheck.papers``).
"""
