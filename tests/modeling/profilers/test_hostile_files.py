"""Profiler files made to hurt: a long layout that pivots into a huge table, metrics named like the table's own
columns, missing or absurd fields, a plain table that starts with an ID column, a long preamble. Each is read or
refused with a DataError that says why; none raises anything else."""

import math
import tracemalloc

import pytest

from modeling.errors import DataError
from modeling.tables.profilers.detect import detect, read_profile
from modeling.tables.profilers.workloads import to_workloads

H2 = '"ID","Kernel Name","Metric Name","Metric Value"\n'
H = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'


@pytest.mark.parametrize("make", [
    lambda n: H2 + "".join(f'"{i}","k","m{i}","1"\n' for i in range(n)),                        # ncu details
    lambda n: "Dispatch_Id,Kernel_Name,Counter_Name,Counter_Value\n" + "".join(f"{i},k,C{i},1\n" for i in range(n)),
    lambda n: '"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"\n'
              + "".join(f'"d","k{i}","1","m{i}","x","1","1","1"\n' for i in range(n)),           # nvprof summary
])
def test_a_long_layout_that_would_pivot_into_a_huge_table_is_refused_before_it_is_built(make):
    text = make(6000)  # 6,000 launches x 6,000 metrics = 36 million cells from ~150 KB
    tracemalloc.start()
    with pytest.raises(DataError, match=r"6,000 launches x 6,000 metrics = 36,000,000 cells once pivoted"):
        read_profile(text.encode())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 100e6, peak  # a few times the file, not the pivoted table (it used to run out of memory)
    assert len(read_profile(make(50).encode()).launches) == 50  # the same shape, small: read


@pytest.mark.parametrize("name", ["launch", "kernel", "invocations", "workload", "application", "launches",
                                  "_weight", "repeats_total"])
def test_a_metric_named_like_a_column_of_the_table_is_renamed_not_crashed_on(name):
    text = H + f'"0","k","{name}","inst","5"\n"0","k","gpu__time_duration.sum","usecond","2"\n' \
               f'"1","k2","{name}","inst","7"\n"1","k2","gpu__time_duration.sum","usecond","3"\n'
    p = read_profile(text.encode())
    assert p.launches[f"{name} (metric)"].tolist() == [5.0, 7.0]
    assert p.launches["kernel"].tolist() == ["k", "k2"] and p.launches["invocations"].tolist() == [1.0, 1.0]
    assert any("renamed" in n for n in p.notes)
    w = to_workloads([(p, "run")], "app")
    assert w.frame[f"{name} (metric)"].iloc[0] == 12.0 and w.frame["workload"].iloc[0] == "run"


def test_a_rocprof_column_named_launch_is_not_a_crash():
    p = read_profile(b"Index,KernelName,launch,SQ_WAVES\n0,k,x,4\n1,k,y,5\n")
    assert p.launches["SQ_WAVES"].tolist() == [4.0, 5.0] and list(p.launches["launch"]) == [0, 1]


def test_rocprofv3_long_layout_without_a_dispatch_column():
    p = read_profile(b"Index,Kernel_Name,Counter_Name,Counter_Value\n0,k,SQ_WAVES,4\n1,k,SQ_WAVES,6\n")
    assert p.launches["SQ_WAVES"].tolist() == [4.0, 6.0]  # Index tells the dispatches apart
    with pytest.raises(DataError, match="no Dispatch_Id"):
        read_profile(b"Agent_Id,Kernel_Name,Counter_Name,Counter_Value\n1,k,SQ_WAVES,4\n")


def test_absurd_timestamps_leave_the_duration_empty_and_say_so():
    text = ("Index,KernelName,BeginNs,EndNs,SQ_WAVES\n0,k,0," + "9" * 340 + ",4\n1,k,100,50,4\n2,k,100,300,4\n")
    p = read_profile(text.encode())
    d = p.launches["duration"].tolist()
    assert math.isnan(d[0]) and math.isnan(d[1]) and d[2] == pytest.approx(200e-9)
    assert any("2 dispatch(es) with unreadable timestamps or an end before the start" in n for n in p.notes)


@pytest.mark.parametrize("count", ["inf", "1e400", "nan", "-3", "0", "x", "1.5"])
def test_nvprof_invocations_must_be_a_count(count):
    text = ('"Device","Kernel","Invocations","Metric Name","Metric Description","Min","Max","Avg"\n'
            f'"d","k","{count}","ipc","x","1","1","1"\n')
    with pytest.raises(DataError, match="is not a count of launches"):
        read_profile(text.encode())


def test_a_plain_table_starting_with_an_id_column_is_not_taken_for_ncu():
    assert detect("ID,host_time,target_time,f1\nw1,1,2,3\n") is None
    assert detect('"ID","Kernel Name","Metric Name","Metric Value"\n') == "ncu-details"


def test_a_long_profiler_preamble_does_not_hide_the_table():
    """ncu prints a ==PROF== line per profiled launch before its table: 6,000 of them."""
    pre = "".join(f'==PROF== Profiling "k" - {i}: 0%....50%....100% - 8 passes\n' for i in range(6000))
    text = pre + H + '"0","k","gpu__time_duration.sum","usecond","2"\n'
    assert detect(text) == "ncu-details" and len(read_profile(text.encode()).launches) == 1


def test_lines_after_the_table_that_do_not_fit_it_are_counted_in_a_note():
    text = (H + '"0","k","gpu__time_duration.sum","usecond","2"\n"1","k","gpu__time_duration.sum","usecond","3"\n'
            '"2","k","gpu__time_duration.sum","usecond","4","extra"\nDone, 3 kernels.\n')
    p = read_profile(text.encode())
    assert len(p.launches) == 2
    assert "2 line(s) after the table, from line 4, do not have its 5 fields: not read" in p.notes


def test_rows_wider_than_the_header_are_counted_against_the_budget_while_they_are_read():
    """The shape checked first is lines x header fields; rows far wider than the header used to be parsed
    whole (a 19 MB file of short fields took 722 MB) and then dropped as trailing output."""
    wide = "," * 100_000
    text = H + '"0","k","gpu__time_duration.sum","usecond","2"\n' + (f'"1","k"{wide}\n' * 60)
    tracemalloc.start()
    with pytest.raises(DataError, match=r"rows hold more than 5,000,000 fields \(line \d+ has 100,002\)"):
        read_profile(text.encode())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 400e6, peak


def test_an_overflowed_nvprof_counter_is_an_empty_value_not_a_refusal():
    text = ('"Device","Kernel","Invocations","Event Name","Min","Max","Avg","Total"\n'
            '"d","k","1","inst_executed","1","1","<OVERFLOW>","1"\n"d","k2","1","inst_executed","5","5","5","5"\n')
    p = read_profile(text.encode())
    assert math.isnan(p.launches["inst_executed"].iloc[0]) and p.launches["inst_executed"].iloc[1] == 5.0


def test_a_rocprofv3_counter_named_like_a_column_of_the_row_is_kept_apart():
    p = read_profile(b"Dispatch_Id,Kernel_Name,Counter_Name,Counter_Value\n1,k,SQ_WAVES,4\n1,k,Kernel_Name,7\n")
    assert p.launches["kernel"].tolist() == ["k"] and p.launches["Kernel_Name (counter)"].tolist() == [7.0]
