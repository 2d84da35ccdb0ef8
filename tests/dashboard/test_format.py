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


def test_values_are_written_in_the_unit_and_a_missing_unit_gets_no_prefix():
    assert fmt.si(1.53e-4, "") == "0.000153" and fmt.si(153.0, "") == "153"  # was "153 µ", "153"
    assert fmt.si(1500.0, "ms") == "1,500 ms"  # a unit with its own prefix is never prefixed again ("1.5 kms")
    assert fmt.si(0.512, "s") == "512 ms" and fmt.si(2.5e6, "cycles") == "2.5 Mcycles"  # as before
    assert fmt.si(1.2e4, "J") == "12 kJ"
    assert fmt.unit_text("") == "no unit given" and fmt.unit_text("ms") == "ms"
    assert fmt.with_unit("predicted", "ms") == "predicted (ms)" and fmt.with_unit("predicted", "") == "predicted"
    # the grid's formatter: no prefix chain without a known unit, and the unit as a quoted string only
    assert "' µ'" in fmt.js_si("s") and "' µ'" not in fmt.js_si("") and "' µ'" not in fmt.js_si("ms")
    assert fmt.js_si("ms").endswith("+ ' ' + 'ms'") and not fmt.js_si("").endswith("'")
    assert fmt.js_si("a'b\\c").endswith("'a\\u0027b\\u005cc'")
