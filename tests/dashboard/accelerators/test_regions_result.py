"""The accelerometer's optimization regions are a typed result: the figure and the page's grids read its fields,
the cut-offs are derived from the regions, and it goes through the job codec (dashboard/jobs/codec.py) and comes
back as the same types, drawing the same figure; the command line prints the same JSON as before."""

from dashboard.accelerators.figures import regions_figure
from dashboard.jobs import codec
from modeling.accelerators.accelerometer import OptimizationRegions, Region, optimization_regions
from modeling.accelerators.cli import evaluate
from modeling.accelerators.presets import preset


def test_optimization_regions_round_trip_through_the_codec_and_draw_the_same_figure():
    reg = optimization_regions(preset("ultrasparc-t2:aes"), 16, 32 * 2**20)
    back = codec.unpack(codec.pack(reg))
    assert type(back) is OptimizationRegions and all(type(r) is Region for r in back.regions)
    assert back == reg and back.cutoffs == reg.cutoffs and reg.cutoffs["L"] is None
    assert regions_figure(back, 16, 32 * 2**20) == regions_figure(reg, 16, 32 * 2**20)
    fig = regions_figure(reg, 16, 32 * 2**20)
    assert [n["text"] for n in fig["layout"]["annotations"] if "no gain" in n["text"]] == ["L: no gain ≥ 20%"]
    a = reg.cutoffs["A"]
    assert any(d["x"] == [a[0], a[1]] and d["name"] == "A" for d in fig["data"])


def test_the_command_line_json_keeps_from_and_to():
    out = evaluate(preset("ultrasparc-t2:aes"), [16, 4096, 32 * 2**20])
    assert set(out["regions"][0]) == {"params", "from", "to"} and out["cutoffs"]["L"] is None
    assert set(out["cutoffs"]["A"]) == {"from", "to"}
