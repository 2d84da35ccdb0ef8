"""/logca's fit note says where a fitted accelerator's curve reproduces its measurements and flags a break-even
size outside the measured ones (the shipped OpenSSL sha-256 timings: g1 below the smallest size, 16 B)."""

from dashboard.accelerators import sources
from dashboard.accelerators.views import fit_rows
from modeling.accelerators import logca
from modeling.accelerators.advisor import fmt_bytes


def test_the_fit_note_names_its_misses_and_flags_an_extrapolated_break_even():
    a = sources.resolve("openssl-x86:sha-256", {})
    res = a.fit["residuals"]
    smallest = min(r["granularity"] for r in res)
    misses = [r for r in res if abs(r["speedup_fit"] / r["speedup"] - 1) > 0.10]
    assert smallest == 16 and misses  # what the note must report, counted here from the measurements
    _, note = fit_rows(a)
    assert f"at {len(res) - len(misses)} of {len(res)} sizes" in note
    assert f"it misses at {len(misses)} " in note
    worst = max(misses, key=lambda r: abs(r["speedup_fit"] / r["speedup"] - 1))
    assert f"{fmt_bytes(worst['granularity'])}: {worst['speedup']:.3g} measured" in note
    g1 = logca.g1(a.params)
    assert g1 < smallest
    assert f"Break-even g1 = {fmt_bytes(g1)} lies below the smallest measured size (16 B)" in note


def test_a_preset_without_measurements_gets_no_range():
    name = next(n for n in sources.preset_names() if not n.startswith("openssl"))
    _, note = fit_rows(sources.resolve(name, {}))
    assert "not fitted from measurements" in note and "extrapolation" not in note
