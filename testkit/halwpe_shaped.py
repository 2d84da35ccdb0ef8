"""A deterministic HALWPE-shaped problem: 364 workloads x 577 correlated counters.

HALWPE's own traces are not public; this generator reproduces their shape for
timing: counters driven by a few dozen latent workload traits (so they are
strongly correlated), some exact derived counters (sums and ratios of others,
as profilers report), and a positive cycles-per-frame target that depends on a
handful of them with an interaction and noise.
"""

import numpy as np


def make(n=364, p=577, n_latent=40, seed=2018):
    rng = np.random.default_rng(seed)
    traits = rng.normal(size=(n, n_latent))
    load = rng.normal(scale=0.6, size=(n_latent, p - 60)) * (rng.random((n_latent, p - 60)) < 0.25)
    base = np.exp(1.0 + traits @ load + rng.normal(scale=0.15, size=(n, p - 60)))
    derived = []
    for _ in range(60):  # exact derived counters: sums of two or three others
        idx = rng.choice(p - 60, size=rng.integers(2, 4), replace=False)
        derived.append(base[:, idx].sum(axis=1))
    X = np.column_stack([base, np.array(derived).T]) * 10 ** rng.integers(0, 5, size=p)
    w = np.zeros(p)
    hot = rng.choice(p - 60, size=12, replace=False)
    w[hot] = rng.uniform(0.2, 2.0, size=12) / X[:, hot].mean(axis=0)
    cpf = 1e6 * (X @ w + 0.3 * (X[:, hot[0]] / X[:, hot[0]].mean()) * (X[:, hot[1]] / X[:, hot[1]].mean()))
    cpf *= np.exp(rng.normal(scale=0.05, size=n))
    groups = np.repeat(np.arange(26), 14)  # 26 "games" of 14 frames
    return X, cpf, groups
