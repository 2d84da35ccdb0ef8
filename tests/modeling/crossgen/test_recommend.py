"""The trade-off sentence says only what the scores show."""

from modeling.crossgen.recommend import trade_off

BASE = "Baseline (host x median ratio)"


def _c(label, male, mean_ape, ir10, max_ape=50.0):
    model = BASE if label == BASE else label.split(" (")[0]
    return {"model": model, "transform": "none", "label": label, "male": male, "mean_ape": mean_ape,
            "median_ape": mean_ape / 2, "ir10": ir10, "max_ape": max_ape}


def test_no_but_when_the_choice_is_not_better_at_the_precision_shown():
    """The baseline kept although the model is as good or better on every printed score: "within 10 % on 83 %
    against 84 %" and "x1.06 against x1.06" are not reasons after a "but"."""
    model = _c("Ridge (log)", 0.0581, 9.0, 84.2)
    base = _c(BASE, 0.0584, 9.4, 83.1)
    note = trade_off([model, base], base)
    assert "but" not in note
    assert "against 84 %" not in note and "x1.06 against x1.06" not in note
    assert "Ridge (log) has the lower mean APE (9.0 % against 9.4 %)" in note
    assert "within 10 % on more workloads (84 % against 83 %)" in note
    assert "the same typical error factor (x1.06)" in note
    assert f"{BASE} is no better on these scores" in note


def test_but_names_only_the_scores_that_favour_the_choice():
    chosen = _c("Ridge (log)", 0.05, 12.0, 80.0)
    by_mean = _c("Lasso (none)", 0.30, 10.0, 80.0)
    note = trade_off([chosen, by_mean])
    assert "but Ridge (log) its typical error factor" not in note
    assert "Lasso (none) has the lower mean APE (10.0 % against 12.0 %), but Ridge (log) has a smaller typical " \
           "error factor (x1.05 against x1.35)." in note
    assert "within 10 %" not in note
    chosen2 = _c("Ridge (log)", 0.05, 12.0, 85.0)
    by_mean2 = _c("Lasso (none)", 0.0501, 10.0, 80.0)
    note2 = trade_off([chosen2, by_mean2])
    assert note2.startswith("Lasso (none) has the lower mean APE (10.0 % against 12.0 %), but Ridge (log) is "
                            "within 10 % on 85 % of the workloads against 80 %.")
    assert "error factor" not in note2
