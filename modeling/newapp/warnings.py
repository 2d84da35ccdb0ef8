"""Plain-word warnings for an estimate of an unseen application, each with its evidence.

Each check returns None or a dict {code, title, evidence}: the title says what
it means for the estimate, the evidence gives the numbers that triggered it.
Thresholds are module constants (documented with each check).
"""

from __future__ import annotations

import numpy as np

from modeling import shipped

DISAGREE = 1.5  # estimates differing by more than this factor
SHORT_LAUNCH_S = 20e-6  # launches shorter than ~20 us are dominated by launch overhead
FEW_APPS = 5  # fewer training applications than this
DOMINANT_SHARE = 0.5  # one application holding more than this share of the training workloads
ESTIMATES = ("naive-pooled", "naive-balanced", "roofline")


def _w(code, title, evidence):
    return {"code": code, "title": title, "evidence": evidence}


def disagreement(estimates: dict, host, factor: float = DISAGREE):
    """The no-target estimates (naive pooled, balanced, roofline) differ by more than ``factor``;
    ``host`` is the host value of the same workloads (the evidence quotes ratios to it)."""
    pts = {m: np.asarray(p, float) for m, p in estimates.items() if m in ESTIMATES}
    pts = {m: p for m, p in pts.items() if np.all(np.isfinite(p))}
    if len(pts) < 2:
        return None
    stack = np.vstack(list(pts.values()))
    spread = stack.max(axis=0) / stack.min(axis=0)
    n_bad = int((spread > factor).sum())
    if n_bad == 0:
        return None
    med = {m: float(np.median(p / np.asarray(host, float))) for m, p in pts.items()}
    names = ", ".join(f"{m} {v:.3g}" for m, v in med.items())
    return _w("disagree", "The estimates disagree: treat any one of them as a guess within their range.",
              f"for {n_bad} of {len(spread)} workloads the highest estimate is more than {factor:g}x the lowest "
              f"(median {np.median(spread):.2f}x; median target/host ratio of each: {names}).")


def architecture(host_spec, target_spec):
    """Host and target of different architecture generations: ratios learned on the host's generation
    (and spec ratios) miss what changed in the design."""
    if not host_spec or not target_spec or host_spec["architecture"] == target_spec["architecture"]:
        return None
    return _w("architecture", "Host and target are different architecture generations.",
              f"{host_spec['device']} is {host_spec['architecture']}, {target_spec['device']} is "
              f"{target_spec['architecture']}: caches, schedulers and clocks changed together, so no single "
              "ratio transfers reliably.")


def small_work(table, rows, target_spec, metric="duration"):
    """Grids smaller than the target's SM count (part of the GPU idles) or launches under ~20 us
    (launch overhead, not the kernel, sets the time)."""
    notes = []
    gx, gy, launches = table.column("grid_x"), table.column("grid_y"), table.column("launches")
    if gx is not None and target_spec:
        blocks = gx[rows] * (1.0 if gy is None else gy[rows])
        small = int((blocks < target_spec["sms"]).sum())
        if small:
            notes.append(f"{small} of {len(rows)} workloads launch fewer thread blocks (min {blocks.min():.0f}) "
                         f"than {target_spec['device']} has SMs ({target_spec['sms']:.0f})")
    if metric == "duration":
        per = table.host[rows] / (1.0 if launches is None else np.maximum(launches[rows], 1.0))
        short = int((per < SHORT_LAUNCH_S).sum())
        if short:
            notes.append(f"{short} of {len(rows)} workloads run under {SHORT_LAUNCH_S * 1e6:.0f} us per launch on the "
                         f"host (min {per.min() * 1e6:.1f} us)")
    if not notes:
        return None
    return _w("small", "Small launches: the target's time is set by overhead and idle SMs, not by its specs.",
              "; ".join(notes) + ".")


def rate_columns(table) -> list[int]:
    """Columns that are counts (summed over a workload) and so become per-instruction rates: the shipped
    counter table's ``sum`` counters when the names match, else every feature but the host's own time."""
    meta = shipped.counters()
    sums = set(meta.loc[meta["aggregation"] == "sum", "counter"])
    known = [j for j, n in enumerate(table.feature_names) if n in sums and j != table.host_index]
    if len(known) >= 3:
        return [j for j in known if table.feature_names[j] not in ("elapsed_cycles_sm", "duration")]
    return [j for j in range(len(table.feature_names)) if j != table.host_index]


def rate_space(table, train, cols):
    """log10 of per-instruction rates, standardized on ``train``; returns (Z over all rows, used columns)."""
    instr = table.column("instructions")
    X = table.X[:, cols]
    R = X / np.maximum(instr[:, None], 1.0) if instr is not None else X
    R = np.abs(R)
    pos = R[train]
    eps = np.array([1e-3 * np.median(c[c > 0]) if np.any(c > 0) else 1.0 for c in pos.T])
    L = np.log10(R + eps)
    mu, sd = L[train].mean(axis=0), L[train].std(axis=0)
    use = sd > 1e-9
    return (L[:, use] - mu[use]) / sd[use], int(use.sum())


def unlike_training(table, train, test):
    """The held-out kernels' counters lie farther from every training kernel than training kernels lie from
    each other (RMS distance between kernel centroids in standardized log per-instruction rates)."""
    cols = rate_columns(table)
    if len(cols) < 2:
        return None
    Z, d = rate_space(table, train, cols)
    if d < 2:
        return None
    tk = np.unique(table.kernels[train])
    if len(tk) < 2:
        return None
    cent = np.vstack([Z[train][table.kernels[train] == k].mean(axis=0) for k in tk])
    D = np.sqrt(((cent[:, None, :] - cent[None, :, :]) ** 2).mean(axis=2))
    np.fill_diagonal(D, np.inf)
    spread = float(D.min(axis=1).max())  # the widest gap from a training kernel to its nearest neighbour
    far = []
    for k in np.unique(table.kernels[test]):
        c = Z[test][table.kernels[test] == k].mean(axis=0)
        dist = np.sqrt(((cent - c) ** 2).mean(axis=1))
        j = int(dist.argmin())
        if dist[j] > spread:
            far.append(f"{k}: {dist[j]:.2f} from the nearest ({tk[j]})")
    if not far:
        return None
    return _w("unlike", "Its counters are unlike every training kernel: the models extrapolate.",
              f"RMS distance in standardized log per-instruction rates ({d} counters) — " + "; ".join(far)
              + f"; the training kernels lie at most {spread:.2f} from their nearest neighbour.")


def few_applications(train_groups, minimum=FEW_APPS):
    apps = np.unique(train_groups)
    if len(apps) >= minimum:
        return None
    return _w("few", "Few training applications: anything learned rests on a handful of ratios.",
              f"{len(apps)} training application(s) ({', '.join(map(str, apps))}); each fold teaches one ratio "
              f"per kernel, and fewer than {minimum} applications cannot show how ratios vary.")


def dominant_application(train_groups, train_ratio, share=DOMINANT_SHARE):
    """One application holds more than ``share`` of the training workloads: the pooled median is its ratio."""
    apps, counts = np.unique(train_groups, return_counts=True)
    j = int(counts.argmax())
    if counts[j] / counts.sum() <= share:
        return None
    pooled = float(np.median(train_ratio))
    own = float(np.median(train_ratio[train_groups == apps[j]]))
    return _w("dominant", f"One application ({apps[j]}) dominates the pooled ratio.",
              f"{apps[j]} is {counts[j]} of {counts.sum()} training workloads "
              f"({100 * counts[j] / counts.sum():.0f} %); "
              f"pooled median ratio {pooled:.3g}, {apps[j]}'s own {own:.3g}. The kernel-balanced ratio counts "
              "each kernel once.")


def warnings_for(table, train, test, estimates: dict) -> list[dict]:
    """All warnings for estimating ``test`` rows from ``train`` rows; ``estimates`` {method: points}."""
    ratio = table.target[train] / table.host[train]
    checks = [disagreement(estimates, table.host[test]), architecture(table.host_spec, table.target_spec),
              small_work(table, test, table.target_spec, table.metric), unlike_training(table, train, test),
              few_applications(table.groups[train]), dominant_application(table.groups[train], ratio)]
    return [c for c in checks if c]
