"""How launches become workloads where files and names are awkward: an application run's kernels are parts
of the run (added), not repeats of one another; input tags from file names keep whole numbers and are never
shared by two files; the text columns of an nvprof file can give the tag."""

from pathlib import Path

import pytest

from modeling.errors import DataError
from modeling.tables.profilers.detect import read_profile
from modeling.tables.profilers.workloads import file_tags, to_workloads

F = Path(__file__).resolve().parents[2] / "fixtures" / "profilers"
HEAD = '"ID","Kernel Name","Block Size","Grid Size","Metric Name","Metric Unit","Metric Value"\n'


def _details(kernels_us, tag_value=None):
    rows = [f'"{i}","{k}","(256, 1, 1)","(64, 1, 1)","gpu__time_duration.sum","usecond","{us}"\n'
            for i, (k, us) in enumerate(kernels_us)]
    return read_profile((HEAD + "".join(rows)).encode())


def test_an_application_run_adds_its_kernels_even_of_one_launch_configuration():
    """Five different kernels launched alike: the run's time is their sum (1,040 us); they used to be taken
    as repeats of one launch, averaged to 208 us, and the long one could be dropped as an outlier."""
    p = _details([("a", 10), ("b", 10), ("c", 10), ("d", 10), ("big", 1000)])
    w = to_workloads([(p, "run")], "app")
    assert w.frame["gpu__time_duration.sum"].iloc[0] == pytest.approx(1040e-6)
    assert w.repeats == {"launches": 5, "outliers": 0}
    # repeats of one kernel are still repeats: averaged, the outlier filtered
    again = _details([("a", 10), ("a", 10.2), ("a", 9.8), ("a", 10.1), ("a", 500), ("b", 30)])
    w = to_workloads([(again, "run")], "app")
    assert w.frame["gpu__time_duration.sum"].iloc[0] == pytest.approx((10 + 10.2 + 9.8 + 10.1) / 4 * 1e-6 + 30e-6)
    assert w.repeats["outliers"] == 1


def test_two_files_with_one_input_tag_are_refused():
    p, q = _details([("a", 10)]), _details([("a", 1000)])
    with pytest.raises(DataError, match="Two files give the input tag 'ncu'"):
        to_workloads([(p, "ncu"), (q, "ncu")], "kernel+tag")
    assert len(to_workloads([(p, "ncu"), (q, "ncu")], "kernel").frame) == 1  # kernel alone: one workload


@pytest.mark.parametrize("names,tags", [
    (["s_110.csv", "s_120.csv"], ["110", "120"]),          # not "1", "2"
    (["s_110.csv", "s_210.csv"], ["110", "210"]),          # so that a host's 120 never meets a target's 210
    (["host_n1024.csv", "host_n2048.csv"], ["1024", "2048"]),
    (["run10x.csv", "run20x.csv"], ["10", "20"]),
    (["a_1.csv", "a_2.csv"], ["1", "2"]),
    (["hotspot_64.csv", "hotspot_128.csv"], ["64", "128"]),
    (["only.csv"], ["only"]),
])
def test_file_name_tags_keep_whole_numbers(names, tags):
    assert file_tags(names) == tags


def test_an_nvprof_files_text_columns_can_give_the_tag():
    """The renaming to Nsight Compute names kept the metrics but used to drop the text columns the card offers
    (Device), so choosing one was refused."""
    p = read_profile((F / "nvprof_metrics_events.csv").read_bytes())
    assert "Device" in p.tag_columns
    w = to_workloads([(p, "v100")], "app", tag_column="Device")
    assert len(w.frame) == 1 and w.frame["workload"].iloc[0].startswith("Tesla")
