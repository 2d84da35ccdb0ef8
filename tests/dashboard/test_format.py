"""One way to write numbers: p-values, times, bytes, plain numbers."""

from dashboard.ui import format as fmt


def test_pvalues_in_one_style():
    assert fmt.pvalue(3.6e-77) == "3.6e-77" and fmt.pvalue(8.165e-12) == "8.2e-12"
    assert fmt.pvalue(1.251e-2) == "0.013" and fmt.pvalue(0.5) == "0.500" and fmt.pvalue(None) == "–"


def test_times_and_counts_with_units():
    assert fmt.si(8.21e-6, "s") == "8.21 µs" and fmt.si(0.512, "s") == "512 ms" and fmt.si(3.2, "s") == "3.2 s"
    assert fmt.si(1.234e6, "cycles") == "1.23 Mcycles" and fmt.si(0, "s") == "0 s"


def test_plain_numbers_and_bytes():
    assert fmt.number(2147483647) == "2,147,483,647" and fmt.number(0.012345) == "0.01235"
    assert fmt.number(3.6e-77) == "3.600e-77" and fmt.number(1234.5) == "1,234"
    assert fmt.nbytes(9.83 * 1024) == "9.83 KiB"
