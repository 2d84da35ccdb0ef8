"""The simulator readers return exactly what they returned when the golden file was written: every record's
key, configuration, dump, kernel, launch, stream, notes and every value (as ``repr`` of the float, so that
the last bit, ``nan`` and the infinities count), and each file's names in order, units, original names and
notes, for every real sample under tests/data/simulators, the logs of ``simlogs`` (complete, cut by a limit,
without the exit marker, truncated, concurrent kernels, CRLF line ends) and a long log synthesised from a
real one's blocks (compared by digest: its JSON is tens of megabytes). Reading faster must change none of it.

Regenerate (only when a change of what the readers return is meant):
``.venv/bin/python -m tests.modeling.simulators.test_reader_golden --write``
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest

from modeling.tables.simulators.detect import read_paths
from tests.modeling.simulators import simlogs

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "data" / "simulators"
GOLDEN = HERE / "golden" / "records.json"
REAL = sorted(str(p.relative_to(DATA)) for p in DATA.rglob("*") if p.is_file() and p.suffix == ".txt")


def _long_log(copies: int = 40) -> str:
    """A real Accel-Sim log's configuration dump, then its kernel blocks ``copies`` times (each launch with
    its own uid), then its exit marker."""
    text = (DATA / "accel-sim-rodinia/backprop-rodinia-2.0-ft.txt").read_text()
    first = text.index("launching kernel name:")
    end = text.index(simlogs.EXIT.strip())
    header, blocks, tail = text[:first], text[first:end], text[end:]
    out, uid = [header], 0
    for _ in range(copies):
        def renumber(m):
            nonlocal uid
            if m.group(1) == "uid: ":
                uid += 1
            return f"{m.group(1)}{uid}"
        out.append(re.sub(r"(kernel_launch_uid = |uid: )\d+", renumber, blocks))
    out.append(tail)
    return "".join(out)


def _synthetic() -> dict:
    """name -> the text of each log built here."""
    three = simlogs.log(3)
    cut_at = three.index("gpu_tot_issued_cta", three.index("kernel_launch_uid = 3"))
    heartwall = (DATA / "accel-sim-rodinia/heartwall-rodinia-2.0-ft.txt").read_text()
    return {
        "complete.log": three,
        "limit.log": simlogs.log(3, end=simlogs.LIMIT),
        "no-exit.log": simlogs.log(3, end=""),
        "truncated.log": three[:cut_at],
        "concurrent.log": simlogs.log(2).replace(f"kernel_name = {simlogs.VEC} ",
                                                 f"kernel_name = {simlogs.VEC} {simlogs.SGEMM} "),
        "stream.log": simlogs.HEADER + simlogs.block(simlogs.VEC, 1, 1000, 5000, 1000, 5000, 4, stream=7)
                      + simlogs.EXIT,
        "crlf-heartwall.log": heartwall.replace("\n", "\r\n"),
        "no-final-newline.log": three.rstrip("\n"),
        "v21/m5out/stats.txt": simlogs.GEM5_V21,
        "crlf/m5out/stats.txt": simlogs.GEM5_V21.replace("\n", "\r\n"),
    }


def canonical(result, strip: str) -> dict:
    """What an import returned, in a form JSON holds exactly."""
    def src(s):
        return s.replace(strip, "")

    files = []
    for f in result.files:
        files.append({"source": src(f.source), "format": f.format, "names": list(f.names), "units": f.units,
                      "original": f.original, "notes": [src(n) for n in f.notes],
                      "records": [{"key": r.key.to_dict(), "configuration": r.configuration, "dump": r.dump,
                                   "kernel": r.kernel, "launch_uid": r.launch_uid, "stream": r.stream,
                                   "notes": list(r.notes), "values": {k: repr(v) for k, v in r.values.items()}}
                                  for r in f.records]})
    return {"files": files, "refused": [[src(s), src(m)] for s, m in result.refused],
            "notes": [src(n) for n in result.notes]}


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


def current(tmp: Path) -> dict:
    """Every case read by the readers as they are now."""
    out = {}
    for rel in REAL:
        out[f"real:{rel}"] = canonical(read_paths([DATA / rel]), str(DATA) + "/")
    for name, text in _synthetic().items():
        p = tmp / "synthetic" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode())
        out[f"synthetic:{name}"] = canonical(read_paths([p]), str(tmp) + "/")
    # every gem5 file of the study at once, as one folder (the order of the files and their shared tables)
    out["folder:gem5"] = canonical(read_paths([tmp / "synthetic"]), str(tmp) + "/")
    long = tmp / "long" / "backprop-long.log"
    long.parent.mkdir(parents=True, exist_ok=True)
    long.write_text(_long_log())
    got = canonical(read_paths([long]), str(tmp) + "/")
    out["long:backprop x40"] = {"records": sum(len(f["records"]) for f in got["files"]), "sha256": _digest(got)}
    return out


@pytest.fixture(scope="module")
def now(tmp_path_factory):
    return current(tmp_path_factory.mktemp("golden"))


@pytest.fixture(scope="module")
def golden():
    return json.loads(GOLDEN.read_text())


def test_golden_covers_every_case(now, golden):
    assert sorted(now) == sorted(golden)


@pytest.mark.parametrize("case", [f"real:{r}" for r in REAL] + [f"synthetic:{n}" for n in _synthetic()]
                         + ["folder:gem5", "long:backprop x40"])
def test_readers_return_what_they_returned(case, now, golden):
    got, want = now[case], golden[case]
    if "sha256" in want:
        assert got == want
        return
    assert got["refused"] == want["refused"] and got["notes"] == want["notes"]
    assert len(got["files"]) == len(want["files"])
    for g, w in zip(got["files"], want["files"]):
        assert {k: v for k, v in g.items() if k != "records"} == {k: v for k, v in w.items() if k != "records"}
        assert len(g["records"]) == len(w["records"])
        for i, (rg, rw) in enumerate(zip(g["records"], w["records"])):
            assert rg == rw, f"{case}: record {i} differs"


if __name__ == "__main__" and "--write" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(current(Path(d)), indent=0, sort_keys=True) + "\n")
    print(f"written: {GOLDEN} ({GOLDEN.stat().st_size:,} bytes)")


def test_many_files_read_in_parallel_are_the_same_import(tmp_path):
    """A folder of many files read by two processes: the same records, notes and refusals in the same order,
    and the files of one study still share one table of names."""
    for name, text in _synthetic().items():
        for i in range(3):
            p = tmp_path / "study" / f"copy{i}" / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(text.encode())
    for rel in REAL:
        p = tmp_path / "study" / "real" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes((DATA / rel).read_bytes())
    (tmp_path / "study" / "junk.log").write_bytes(b"\x00\x01" * 100)
    one = read_paths([tmp_path / "study"], jobs=1)
    two = read_paths([tmp_path / "study"], jobs=2)
    assert len(one.files) + len(one.refused) >= 16 and one.refused  # copies claiming one run, the junk
    assert canonical(two, str(tmp_path)) == canonical(one, str(tmp_path))

    def tables(result):
        return len({id(f.names) for f in result.files})

    assert tables(two) == tables(one) < len(one.files)
