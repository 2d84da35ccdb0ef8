"""The words, facts and rows the /phases page shows of its data and of a held-out evaluation, computed from the
sources and a result (no Dash, so tests can import them). The new program's card: new_program_text.py."""

from __future__ import annotations

from dashboard.phases import sources
from dashboard.phases.figures import NAMES
from dashboard.phases.results import PhasesRun

#: the error columns of the models grid, per model
MODEL_ERRORS = ("per_phase_mape", "program_mean_ape", "program_max_ape")


def source_name(source: str) -> str:
    """What the user calls a source: the shipped traces, or the uploaded file's name (its id if it is gone)."""
    if source == sources.SHIPPED:
        return "shipped cBench traces"
    try:
        return f"{sources.meta(source)['name']} (uploaded)"
    except LookupError:
        return source


def data_phrase(source) -> str:
    """The intro's words for the chosen data: how many programs, and where they were measured."""
    try:
        n = len(sources.programs(source))
    except LookupError:
        return "the programs of the chosen table"
    programs = f"{n} program{'s' if n != 1 else ''}"
    if source == sources.SHIPPED:
        return f"{programs} of cBench measured on an ODROID-XU3"
    return f"{programs} of {source_name(source)}"


def excluded_text(runs: list[dict], most: int = 8) -> str:
    """The runs quality control left out, each with its deviation from its program's median instruction total
    (as the CLI's build step names them), the first ``most`` by name."""
    if not runs:
        return "Runs excluded by quality control: none."
    named = [f"{r['program']} run {r['run']} at {r['freq_mhz']:g} MHz ({100 * r['deviation']:+.1f} % from the "
             f"program's median)" for r in runs[:most]]
    more = f"; and {len(runs) - most} more" if len(runs) > most else ""
    return f"Runs excluded by quality control ({len(runs)}, instructions more than 10 % from the median of the " \
           f"program's runs): {'; '.join(named)}{more}."


def stored_text(m: dict) -> str:
    """What an upload was stored as (a trace or a phase table), its notes and the runs left out."""
    what = (f"a trace: {m['programs']} programs at {', '.join(f'{f:g}' for f in m['frequencies'])} MHz"
            if m["kind"] == "samples" else f"a phase table of {m['programs']} programs")
    notes = " ".join(m["notes"])
    excl = f" {excluded_text(m['excluded_runs'])}" if m["excluded_runs"] else ""
    return f"Stored {what}. {notes}{excl}".strip()


def pair_text(p: dict) -> str:
    """The data and the host → target frequencies of an evaluation's parameters."""
    where = source_name(p["source"])
    freqs = "the phase table's pair" if p["host_freq"] == 0 else f"{p['host_freq']} → {p['target_freq']} MHz"
    return f"{where}: {freqs}"


def summary(run: PhasesRun):
    """The evaluation's summary (:meth:`dashboard.phases.results.PhasesRun.summary`) with the data, frequencies
    and runs left out as the page names them."""
    return run.summary(pair_text(run.params), excluded_text(run.excluded_runs))


def model_rows(run: PhasesRun) -> list[dict]:
    """The models grid: each model's name and its errors on held-out programs."""
    return [{"model": NAMES[r.model], **{k: getattr(r, k) for k in MODEL_ERRORS}} for r in run.evaluation.models]


def programs_of(run: PhasesRun) -> list[str]:
    """The held-out programs of a result, by name."""
    return run.programs
