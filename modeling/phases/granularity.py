"""The default phase granularity: one rule, computed once from the trace, used by ``build-data armpm``, the
evaluation, a new program's prediction, the command line and the page (its field's default, minimum and hint).

A phase must hold at least about one sample of the run that retires the most instructions per sample
(:func:`modeling.build.armpm.align`: finer phases would be interpolated copies of one sample). So:

* ``finest`` = ``SAMPLE_SLACK`` x the largest median instructions per sample over the runs at the chosen
  frequencies (a run's first and last samples, its edges, are not cut into phases and do not count), rounded
  up to two significant digits (the number shown is one that is accepted);
* the default is ``PREFERRED`` (2e9, the granularity the shipped cBench tables are built at) when the trace
  supports it, else ``finest``.

On the shipped cBench traces this is 2e9; on the public PARSEC traces (samples of up to 3.16e9 instructions,
2-core runs at 1800 MHz) 3.0e9.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from modeling.build import armpm

PREFERRED = armpm.DEFAULT_GRANULARITY


@dataclass(frozen=True)
class Granularity:
    """The rule's answer for one trace and set of frequencies: the default, the finest accepted, and why."""

    value: float
    finest: float
    per_sample: float

    @property
    def raised(self) -> bool:
        """The trace's samples are too large for the preferred granularity."""
        return self.value > PREFERRED

    @property
    def hint(self) -> str:
        """What the page shows beside the field and a result notes."""
        text = f"at least {self.finest:.3g} instructions for this data (about one sample of its densest run)"
        if self.raised:
            text += (f"; default {self.value:.3g}: its samples hold up to {self.per_sample:.3g} instructions, "
                     f"too many for {PREFERRED:.3g}")
        else:
            text += f"; default {self.value:.3g}"
        return text


def per_sample(samples: pd.DataFrame, freqs=None) -> float:
    """The largest median instructions per sample over the runs (at ``freqs``, all when None), edges left
    out; 0 for no runs."""
    s = armpm.core(samples)
    if freqs is not None:
        s = s[s["freq_mhz"].astype(float).isin([float(f) for f in freqs])]
    if s.empty:
        return 0.0
    keys = [c for c in ("program", "run", "freq_mhz") if c in s.columns]
    return float(s.groupby(keys)[armpm.INSTR].median().max())


def rule(*samples: pd.DataFrame, freqs=None) -> Granularity:
    """The default granularity of the runs in ``samples`` (one or more samples frames) at ``freqs``."""
    ps = max([per_sample(s, freqs) for s in samples] or [0.0])
    if not np.isfinite(ps) or ps <= 0:
        return Granularity(PREFERRED, PREFERRED, 0.0)
    finest = armpm.rounded_up(armpm.SAMPLE_SLACK * ps)
    return Granularity(max(PREFERRED, finest), finest, ps)
