"""Privacy of Lowy, Liu and Asi (2024): finding F6 by the numerical accountant, and the audit table.

* F6: for delta from 1e-3 to 1e-12, Algorithm 2's printed ``sigma_i`` (Alg 2 line 14) against the sigma that
  eq. (10)'s chain (Lemmas A.6, A.8, A.7) needs with Lemma C.2's sensitivity, at the paper's phase-1 scale
  (n = 10^6, d = 10, eps = 1, n_1 = K_1 = 10^5 after the F5 cap, T_1 = 30): with the explicit constant of
  :func:`~dpaudit.userlevel.lowy2024.privacy.alg2_coupling_sensitivity`, and with the hidden constant read as 1;
* every audit case of :func:`~dpaudit.userlevel.lowy2024.lowy2024_audit_cases` (claim, 95% lower bound, verdict).

Run: ``python -m benchmarks.bench_lowy2024_privacy [--scale 1.0]``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from dpaudit.userlevel.lowy2024 import f6_comparison, lowy2024_audit_cases

DELTAS = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="bench_lowy2024_privacy")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every case's trials")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = f6_comparison(DELTAS, epsilon=1.0, n=10**6, d=10, phase_users=10**5, users=10**5, steps=30)
    print("F6: Algorithm 2's sigma_i, printed vs needed by eq. (10) (n = 1e6, d = 10, eps = 1, n_1 = K_1 = 1e5, T_1 = 30, tau = 1)")
    print(f"{'delta':>8} {'printed':>10} {'needed (explicit c)':>20} {'ratio':>7} {'c':>6} {'needed (c = 1)':>15} {'ratio':>7}")
    for r in rows:
        print(f"{r.delta:>8.0e} {r.printed_sigma:>10.4g} {r.needed_sigma_explicit:>20.4g} {r.ratio_explicit:>7.2f} "
              f"{r.explicit_constant:>6.1f} {r.needed_sigma_unit_constant:>15.4g} {r.ratio_unit_constant:>7.3f}")
    print("ratio = needed/printed; > 1 means the printed sigma does not give eq. (10)'s eps/2. c: Lemma C.2's constant "
          "(Delta = c tau log(1/zeta)/K).")
    cases = lowy2024_audit_cases()
    seeds = np.random.SeedSequence(args.seed).spawn(len(cases))
    print(f"\nAudits (confidence 0.95, root seed {args.seed}, trials x {args.scale:g}):")
    print(f"{'case':<46} {'claim':>16} {'eps >=':>8} {'verdict':<10} {'expected':<9} {'time':>6}")
    for case, seed in zip(cases, seeds, strict=True):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = case.audit(seed=seed, scale=args.scale)
        claim = f"({res.claimed_epsilon:.3g}, {res.delta:.2g})"
        print(f"{case.name[:46]:<46} {claim:>16} {res.epsilon_lower_bound:>8.3f} {'VIOLATION' if res.violation else 'ok':<10} "
              f"{('broken ' + (case.bug or '')) if case.broken else 'correct':<9} {time.perf_counter() - start:>5.1f}s")


if __name__ == "__main__":
    main()
