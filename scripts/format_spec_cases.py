"""Prints CPython's format(value, spec) for the cases of crates/unitxt/src/py/format_spec.rs's
`matches_cpython` test (its expected strings come from this script; run with Python 3.11)."""

inf, nan = float("inf"), float("nan")
CASES = [
    (5, "<05"), (True, ">5"), (True, ""), (True, "d"), ("ab", "05"), (-5, "05"), (255, "_b"),
    (255, "#_x"), (255, "#010x"), (1234567, ",d"), (1234, "010,"), (1234, "06,"), (1, "04,"),
    (1234, "_"), (5, "=+5"), (12, "x"), (65, "c"), (4, "+"), (4, "*<4"), (1234.5, ",.1f"),
    (1234.5, "012,.1f"), (0.0001234, ".3g"), (1e20, "g"), (123456789.0, "g"), (100.0, "g"),
    (100.0, "#g"), (2.5, "%"), (0.25, ".1%"), (True, ".2f"), (1.0, ".0"), (12.5, ".3"),
    (123.0, ".3"), (0.0, ".3"), (1.5, ""), (1.5, ">6"), (-1.5, "08.2f"), (1234.5678, "e"),
    (1234.5678, ".2E"), (-0.0, ".1f"), (-0.0, "z.1f"), (-0.01, "z.1f"), (1.0, "#.0f"),
    (inf, "F"), (nan, ".2f"), (1e16, ","), (1234.5, ","), (3, ".2f"), (3, "e"), ("abc", ".2"),
    ("abc", "^7"), ("abc", "x>5s"), ("ab", "=5"), ("ab", "+"), ("ab", "d"), ("ab", ","),
    (3, ".2"), (3, ",x"), (3, "q"), (3.0, "d"), (3, "."), (3, "5x5"),
]
for value, spec in CASES:
    try:
        out = format(value, spec)
    except ValueError as e:
        out = f"ERR {e}"
    print(f"{value!r}\t{spec!r}\t{out!r}")
