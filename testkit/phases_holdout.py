"""The held-out protocol of a program never run on the target (``benchmarks/phases_new_program.py`` measures with
it; the tests check that it never reads the program's own target values): its host run only, and the prediction
from the phase table without its rows."""

from __future__ import annotations

import pandas as pd

from modeling.phases import data
from modeling.phases.predict import new_program, predict_program

def host_trace(samples: pd.DataFrame, program: str, host_freq: float, run: int = 1) -> pd.DataFrame:
    """The program's host run only (no sample at any other frequency, so no target value)."""
    s = samples[(samples["program"] == program) & (samples["freq_mhz"] == host_freq) & (samples["run"] == run)]
    return s.reset_index(drop=True)


def predict_one(program: str, phases: pd.DataFrame, samples: pd.DataFrame, target: str, host_freq: float,
                target_freq: float, level: float, granularity: float = data.DEFAULT_GRANULARITY, run: int = 1,
                model: str = "auto"):
    """The prediction for ``program``: from its host samples (run ``run``) and the table without its rows."""
    host, notes = new_program(host_trace(samples, program, host_freq, run), host_freq, granularity)
    training = phases[phases["program"] != program]
    return predict_program(host, training, target, model, level=level, host_freq=host_freq, target_freq=target_freq,
                           granularity=granularity, notes=notes)
