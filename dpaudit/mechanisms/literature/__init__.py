"""The standard benchmark suites of the DP-testing literature, as dpaudit mechanisms.

The mechanisms of StatDP [DWWZK18] and DP-Sniper [BSBV21] (which extends StatDP's list with
RAPPOR, a truncated geometric, parallel compositions and floating-point Laplace), each with the
parameters those papers audit them at. Only what :mod:`dpaudit.mechanisms` and
:mod:`dpaudit.mechanisms.faulty` lack is here; known-broken ones are
:class:`~dpaudit.mechanisms.base.UnsafeMechanism` subclasses (construction warns). The audit
cases pairing every suite mechanism with StatDP's input patterns are in
:mod:`dpaudit.literature_suite`.

References
----------
.. [DWWZK18] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer. Detecting violations of
   differential privacy. CCS 2018.
.. [BSBV21] B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev. DP-Sniper: black-box discovery
   of differential privacy violations using classifiers. IEEE S&P 2021.
"""

from dpaudit.mechanisms.literature.composition import LaplaceParallel, PrefixSum, SVT34Parallel
from dpaudit.mechanisms.literature.floating import SnappingLaplace
from dpaudit.mechanisms.literature.geometric import TruncatedGeometric
from dpaudit.mechanisms.literature.rappor import AnyTwoValues, OneTimeRappor, Rappor
from dpaudit.mechanisms.literature.sparse_vector import NumericalSVT, SparseVectorResampled

__all__ = [
    "AnyTwoValues",
    "LaplaceParallel",
    "NumericalSVT",
    "OneTimeRappor",
    "PrefixSum",
    "Rappor",
    "SVT34Parallel",
    "SnappingLaplace",
    "SparseVectorResampled",
    "TruncatedGeometric",
]
