"""What /generations says about a result beyond its charts (no Dash, so tests import it)."""

from __future__ import annotations

from dashboard.crossgen.results import GenerationsRun


def workload_sets_text(run: GenerationsRun | None) -> str | None:
    """When the targets are scored on different workload sets (a workload without a measured value on a target
    is left out of that target's scenario), the sentence that says so; None when they are scored alike."""
    sizes = {r.target: r.n_workloads for r in (run.rows if run else [])}
    if len(set(sizes.values())) <= 1:
        return None
    groups: dict[int, list[str]] = {}
    for t, n in sizes.items():
        groups.setdefault(n, []).append(t)
    parts = "; ".join(f"{', '.join(ts)}: {n}" for n, ts in sorted(groups.items(), reverse=True))
    return (f"The targets are scored on different workload sets ({parts} workloads): a workload without a measured "
            "value on a target is left out of that target's scenario, so compare their errors with that in mind.")
