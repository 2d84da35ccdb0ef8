"""A farm round's refusals name the file once: the reader's message already starts with it."""

import pandas as pd
import pytest

from modeling.plan import loop
from modeling.plan.inputs import PlanInputError


def test_a_refused_file_is_named_once(tmp_path):
    junk = tmp_path / "x.log"
    junk.write_bytes(b"\x00\x01junk" * 100)
    with pytest.raises(PlanInputError) as e:
        loop.read_round([str(junk)], pd.DataFrame({"id": ["a"], "t": [None]}), "id", "t")
    said = str(e.value)
    assert said.count(str(junk)) == 1 and "binary data" in said and ".." not in said
