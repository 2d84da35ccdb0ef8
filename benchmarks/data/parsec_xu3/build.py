"""Build ``parsec_xu3.data.gz`` from the ARMPM_BUILDMODEL PARSEC traces (see SOURCE.md).

The two per-core-count traces (``..._1core_big.data``, ``..._2core_big.data``) are joined into one trace in
the armpm layout with a ``Cores(#)`` column (the layout of the repository's own combined file), only the
samples at 1000 and 1800 MHz kept, the temperature, voltage and current columns left out (perfcast never
reads them), and written tab-separated and gzipped (fixed gzip time stamp, so the file is reproducible).

``python -m benchmarks.data.parsec_xu3.build --git-dir /path/to/ARMPM_BUILDMODEL/.git`` (or ``--one FILE
--two FILE`` for the two traces as files) writes ``benchmarks/data/parsec_xu3/parsec_xu3.data.gz``.
"""

from __future__ import annotations

import argparse
import gzip
import io
import subprocess
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
OUT = HERE / "parsec_xu3.data.gz"
PATHS = {1: "Examples/Concatenated_Data/PARSEC/xu3_cset_perfcpu_PARSEC_eMMC_1core_big.data",
         2: "Examples/Concatenated_Data/PARSEC/xu3_cset_perfcpu_PARSEC_eMMC_2core_big.data"}
FREQS = (1000, 1800)
DROP = ("CPU(4) Temperature(C)", "A15 Voltage(V)", "A15 Current(A)")


def derive(raw: dict[int, bytes], freqs=FREQS) -> bytes:
    """The derivative's bytes from the raw traces by core count ({1: bytes, 2: bytes})."""
    parts = []
    for cores, b in sorted(raw.items()):
        df = pd.read_csv(io.BytesIO(b), sep="\t", dtype=str)
        df = df[df["CPU(4) Frequency(MHz)"].astype(int).isin(freqs)].drop(columns=list(DROP))
        df.insert(3, "Cores(#)", str(cores))
        parts.append(df)
    text = pd.concat(parts, ignore_index=True).to_csv(sep="\t", index=False)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as f:
        f.write(text.encode())
    return buf.getvalue()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--git-dir", help="a clone (or bare mirror) of kranik/ARMPM_BUILDMODEL")
    p.add_argument("--commit", default="HEAD")
    p.add_argument("--one", help="the 1-core trace as a file")
    p.add_argument("--two", help="the 2-core trace as a file")
    p.add_argument("--out", default=str(OUT))
    a = p.parse_args(argv)
    if a.git_dir:
        raw = {c: subprocess.run(["git", "--git-dir", a.git_dir, "show", f"{a.commit}:{path}"], check=True,
                                 capture_output=True).stdout for c, path in PATHS.items()}
    elif a.one and a.two:
        raw = {1: Path(a.one).read_bytes(), 2: Path(a.two).read_bytes()}
    else:
        p.error("give --git-dir, or --one and --two")
    Path(a.out).write_bytes(derive(raw))
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
