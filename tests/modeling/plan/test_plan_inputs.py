"""Plan inputs: the table, cost, budget and merged results, and every bad input with its message."""

import numpy as np
import pandas as pd
import pytest

from modeling.errors import ConfigError, ModelingError, NotEnoughDataError
from modeling.plan.inputs import Budget, PlanInputError, check_budget, merge_results, parse_budget, read_plan_table
from modeling.tables.reading import read_csv_bytes


def test_budget_in_workloads_and_hours():
    assert parse_budget("20") == Budget("count", 20.0)
    assert parse_budget("7.5h") == Budget("hours", 7.5)
    assert parse_budget(" 40 hours") == Budget("hours", 40.0)
    for bad in ("", "abc", "2.5", "0", "-3h", "0h"):
        with pytest.raises(ConfigError):
            parse_budget(bad)


def test_table_candidates_cost_and_features(frame, table):
    assert table.candidates.sum() == 60 and table.measured.sum() == 30
    assert np.allclose(table.cost, frame["sim_hours"])
    assert "sim_hours" not in table.feature_names and "target" not in table.feature_names
    assert table.feature_names[table.host_index] == "host_s"


def test_cost_from_slowdown(frame):
    t = read_plan_table(frame, "target", "workload", host_col="host_s", slowdown=1000.0)
    assert np.allclose(t.cost, frame["host_s"] * 1000.0 / 3600.0)
    assert "slowdown 1000" in t.cost_source


def test_no_candidates(frame):
    frame["target"] = frame["target"].fillna(1.0)
    with pytest.raises(NotEnoughDataError, match="No candidates"):
        read_plan_table(frame, "target", "workload", host_col="host_s", cost_col="sim_hours")


def test_budget_below_one_workloads_cost(table):
    cheapest = table.cost[table.candidates].min()
    with pytest.raises(ConfigError, match="below the cheapest candidate"):
        check_budget(table, Budget("hours", cheapest / 2))
    check_budget(table, Budget("hours", cheapest))


def test_cost_column_with_zeros(frame):
    frame.loc[[3, 7], "sim_hours"] = 0.0
    with pytest.raises(PlanInputError, match=r"2 value\(s\) at or below zero \(data rows 4, 8\)"):
        read_plan_table(frame, "target", "workload", host_col="host_s", cost_col="sim_hours")


def test_cost_column_with_text(frame):
    frame["sim_hours"] = frame["sim_hours"].astype(object)
    frame.loc[5, "sim_hours"] = "about an hour"
    raw = frame.to_csv(index=False).encode()
    t = read_csv_bytes(raw)  # the reader turns the text into an empty cell and records it
    with pytest.raises(PlanInputError, match=r"holds text.*data rows 6"):
        read_plan_table(t.frame, "target", "workload", host_col="host_s", cost_col="sim_hours",
                        text_dropped=t.text_dropped)
    with pytest.raises(PlanInputError, match="holds text"):  # a frame whose column is still text
        read_plan_table(frame, "target", "workload", host_col="host_s", cost_col="sim_hours")


def test_cost_both_or_neither(frame):
    with pytest.raises(ConfigError, match="not both and not neither"):
        read_plan_table(frame, "target", "workload", host_col="host_s")
    with pytest.raises(ConfigError, match="not both"):
        read_plan_table(frame, "target", "workload", host_col="host_s", cost_col="sim_hours", slowdown=10.0)


def test_results_for_ids_not_in_the_dataset(frame):
    results = pd.DataFrame({"workload": ["w40", "nope", "w41"], "target": [1.0, 2.0, 3.0]})
    before = frame.copy()
    with pytest.raises(PlanInputError, match="not workloads of the dataset: nope"):
        merge_results(frame, results, "workload", "target")
    pd.testing.assert_frame_equal(frame, before)


def test_results_merge_by_id(frame):
    out = merge_results(frame, pd.DataFrame({"workload": ["w41", "w40"], "target": [3.0, 2.0]}), "workload", "target")
    assert out.loc[40, "target"] == 2.0 and out.loc[41, "target"] == 3.0
    assert np.isnan(frame.loc[40, "target"])  # the input is untouched
    assert out["target"].notna().sum() == 32


def test_messages_are_modeling_errors(frame):
    frame.loc[0, "target"] = -1.0
    with pytest.raises(ModelingError, match="at or below zero"):
        read_plan_table(frame, "target", "workload", host_col="host_s", cost_col="sim_hours")
