"""dpaudit's built-in lemma checks: one check per exact lemma of the four papers (see ``README.md``).

Installed as ``dpaudit.proofs`` (the repository keeps the folder ``proofs/``, next to each paper's
``dpaudit/userlevel`` and ``dpaudit/bounds`` modules). ``dpaudit prove`` (or
``python -m dpaudit.proofs``) runs them all and prints the table; the machinery they are written
with is the public :mod:`dpaudit.verify`.
"""

#: Paper keys, in the order the runner prints them, with the citation used in ``source``.
PAPERS: dict[str, str] = {
    "levy2021": "Levy, Sun, Amin, Kale, Kulesza, Mohri, Suresh. Learning with User-Level Privacy. NeurIPS 2021",
    "ghazi2023": "Ghazi, Kamath, Kumar, Meka, Manurangsi, Zhang. On User-Level Private Convex Optimization. ICML 2023",
    "lowy2024": "Lowy, Liu, Asi. Faster Algorithms for User-Level Private Stochastic Convex Optimization. 2024",
    "ghazi2025": "Ghazi, Kumar, Liu, Manurangsi. Linear-Time User-Level DP-SCO via Robust Statistics. 2025",
}
PAPER_ORDER: tuple[str, ...] = tuple(PAPERS)

__all__ = ["PAPERS", "PAPER_ORDER"]
