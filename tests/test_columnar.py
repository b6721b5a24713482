"""The columnar (numpy) readers of runs and qrels read every file exactly as the line parser does.

Oracle: the line-by-line parsers of :mod:`clirkit.formats.runs` and :mod:`clirkit.formats.qrels` (forced
by making the columnar path decline), on the same bytes. Each case is read both ways: the same Run/Qrels
(bit-identical scores), or the same ClirkitError message.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from clirkit import columnar, formats
from clirkit.errors import ClirkitError
from clirkit.formats import qrels as qrels_format
from clirkit.formats import runs as run_format

RUN = "q1 Q0 d3 1 12.5 tag\nq1 Q0 d1 2 12.25 tag\nq2 Q0 d1 1 3.0 tag\nq1 Q0 d2 3 12.25 tag\nq2 Q0 d9 2 7 tag\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d9 2\nq3 0 d4 -1\n"


def _line_parsed(monkeypatch, reader, path, **kwargs):
    with monkeypatch.context() as m:
        m.setattr(run_format, "_read_run_columns", lambda *a: None)
        m.setattr(qrels_format, "_read_qrels_columns", lambda *a: None)
        return _outcome(reader, path, **kwargs)


def _outcome(reader, path, **kwargs):
    try:
        value = reader(path, **kwargs)
    except ClirkitError as exc:
        return "error", str(exc)
    if isinstance(value, formats.Run):
        return "run", value.qids.tolist(), value.docids.tolist(), value.scores.view(np.uint64).tolist(), value.tag
    return "qrels", value.qids.tolist(), value.docids.tolist(), value.rels.tolist()


def _same(monkeypatch, reader, path, **kwargs):
    fast = _outcome(reader, path, **kwargs)
    assert fast == _line_parsed(monkeypatch, reader, path, **kwargs)
    return fast


RUN_VARIANTS = {
    "plain": RUN,
    "tabs": RUN.replace(" ", "\t"),
    "crlf": RUN.replace("\n", "\r\n"),
    "cr": RUN.replace("\n", "\r"),
    "bom": "\ufeff" + RUN,
    "blank lines": "\n\n" + RUN.replace("\n", "\n\n", 2),
    "no final newline": RUN.rstrip("\n"),
    "two spaces": RUN.replace("Q0 d1", "Q0  d1"),
    "leading space": " " + RUN,
    "trailing space": RUN.replace("tag\n", "tag \n", 1),
    "blank line of spaces": RUN + "   \n",
    "mixed tab and space": RUN.replace(" 12.5", "\t12.5"),
    "vertical tab in a token": RUN.replace("d3", "d\x0b3"),
    "non-ascii docid": RUN.replace("d3", "dé3"),
    "nul": RUN.replace("d3", "d\x003"),
    "hex rank": RUN.replace(" 1 12.5", " 0x1 12.5"),
    "signed rank": RUN.replace(" 1 12.5", " +1 12.5"),
    "bare sign rank": RUN.replace(" 1 12.5", " - 12.5"),
    "huge rank": RUN.replace(" 1 12.5", " " + "9" * 40 + " 12.5"),
    "exponent score": RUN.replace("12.5", "1.25e1"),
    "signed score": RUN.replace("12.5", "+12.5"),
    "dot score": RUN.replace("12.5", ".5"),
    "underscore score": RUN.replace("12.5", "1_2.5"),
    "nan score": RUN.replace("12.5", "nan"),
    "inf score": RUN.replace("12.5", "inf"),
    "overflowing score": RUN.replace("12.5", "1e999"),
    "negative zero": RUN.replace("12.5", "-0.0"),
    "trailing dot score": RUN.replace("12.5", "12."),
    "capital exponent": RUN.replace("12.5", "1.25E+1"),
    "dot before exponent": RUN.replace("12.5", "1.e1"),
    "zero with a huge exponent": RUN.replace("12.5", "-0e99999"),
    "seventeen digits": RUN.replace("12.5", "12.345678901234567"),
    "long mantissa": RUN.replace("12.5", "0." + "0" * 30 + "125e32"),
    "more digits than a fast path": RUN.replace("12.5", "9007199254740993"),
    "exponent beyond the exact powers": RUN.replace("12.5", "125e-24"),
    "exponent without digits": RUN.replace("12.5", "1e"),
    "exponent sign without digits": RUN.replace("12.5", "1e+"),
    "two dots": RUN.replace("12.5", "1.2.5"),
    "two signs": RUN.replace("12.5", "--12.5"),
    "sign inside": RUN.replace("12.5", "12-5"),
    "dot in the exponent": RUN.replace("12.5", "1e2.5"),
    "bare exponent": RUN.replace("12.5", "e5"),
    "bare dot": RUN.replace("12.5", "."),
    "bare sign score": RUN.replace("12.5", "-"),
    "two exponents": RUN.replace("12.5", "1e1e1"),
    "hex score": RUN.replace("12.5", "0x1p3"),
    "infinity score": RUN.replace("12.5", "Infinity"),
    "repeated pair": RUN + "q1 Q0 d3 9 1.0 tag\n",
    "repeated pair below the depth": RUN.replace("q2 Q0 d9", "q1 Q0 d3 9 1.0 tag\nq2 Q0 d9"),
    "empty tag field": RUN + "q3 Q0 d1 1 1.0 \n",
    "empty q0 field": RUN + "q3  d1 1 1.0 tag\n",
    "empty first field": RUN + " Q0 d1 1 1.0 tag\n",
    "delimiters only": RUN + "     \n",
    "five columns": RUN.replace("q2 Q0 d9 2 7 tag", "q2 Q0 d9 2 7"),
    "seven columns": RUN + "q3 Q0 d1 1 1.0 tag x\n",
    "long docid": RUN.replace("d3", "d" * 1001),
    "long tag": RUN.replace("tag", "t" * 1001, 1),
    "long rank line": RUN.replace(" 1 12.5", " " + "1" * 70_000 + " 12.5"),
    "empty": "",
    "only blank lines": "\n \n\n",
}


@pytest.mark.parametrize("name", sorted(RUN_VARIANTS))
@pytest.mark.parametrize("depth", [None, 1, 2])
def test_a_run_reads_as_the_line_parser_reads_it(tmp_path, monkeypatch, name, depth):
    path = tmp_path / "a.run"
    path.write_bytes(RUN_VARIANTS[name].encode("utf-8", "surrogatepass"))
    _same(monkeypatch, formats.read_run, path, depth=depth)


@pytest.mark.parametrize("name", ["plain", "cr", "bom", "two spaces", "repeated pair"])
def test_a_gzipped_run_reads_as_the_line_parser_reads_it(tmp_path, monkeypatch, name):
    path = tmp_path / "a.run.gz"
    path.write_bytes(gzip.compress(RUN_VARIANTS[name].encode()))
    _same(monkeypatch, formats.read_run, path)
    damaged = tmp_path / "b.run.gz"
    data = path.read_bytes()
    damaged.write_bytes(data[: len(data) // 2])
    assert _same(monkeypatch, formats.read_run, damaged)[0] == "error"


def test_the_plain_run_takes_the_columnar_path_and_the_odd_one_does_not(tmp_path):
    plain, odd = tmp_path / "a.run", tmp_path / "b.run"
    plain.write_text(RUN)
    odd.write_text(RUN_VARIANTS["two spaces"])
    assert run_format._read_run_columns(plain, None) is not None
    assert run_format._read_run_columns(odd, None) is None


QRELS_VARIANTS = {
    "plain": QRELS,
    "three columns": "".join(" ".join(line.split()[:1] + line.split()[2:]) + "\n" for line in QRELS.splitlines()),
    "tabs": QRELS.replace(" ", "\t"),
    "cr": QRELS.replace("\n", "\r"),
    "bom": "\ufeff" + QRELS,
    "signed grade": QRELS.replace("d9 2", "d9 +2"),
    "ten digit grade": QRELS.replace("d9 2", "d9 0000000002"),
    "nine digit grade": QRELS.replace("d9 2", "d9 -999999999"),
    "hex grade": QRELS.replace("d9 2", "d9 0x2"),
    "float grade": QRELS.replace("d9 2", "d9 2.0"),
    "repeated pair": QRELS + "q1 0 d1 0\n",
    "mixed widths": QRELS + "q4 d1 1\n",
    "two spaces": QRELS.replace("0 d1", "0  d1"),
    "empty iter field": QRELS + "q5  d1 1\n",
}


@pytest.mark.parametrize("name", sorted(QRELS_VARIANTS))
def test_qrels_read_as_the_line_parser_reads_them(tmp_path, monkeypatch, name):
    path = tmp_path / "a.qrels"
    path.write_text(QRELS_VARIANTS[name])
    _same(monkeypatch, formats.read_qrels, path)


def test_many_blocks_and_queries_in_any_order_read_as_one(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    n = 20_000
    qids = rng.integers(0, 300, n)
    docids = rng.permutation(n)  # distinct, so no pair repeats
    scores = np.round(rng.random(n) * 10, 2)  # ties
    lines = [f"q{q} Q0 doc{d} {i} {s!r} run\n" for i, (q, d, s) in enumerate(zip(qids, docids, scores.tolist()))]
    path = tmp_path / "a.run"
    path.write_text("".join(lines))
    monkeypatch.setattr(columnar, "BLOCK_BYTES", 4096)
    monkeypatch.setattr(columnar.iter_column_batches, "__kwdefaults__", {"block_bytes": 4096})
    for depth in (None, 1, 5, 100):
        kind, *rest = _same(monkeypatch, formats.read_run, path, depth=depth)
        assert kind == "run"
        assert run_format._read_run_columns(path, depth) is not None


def test_a_pair_repeated_in_another_block_below_the_depth_is_reported_as_the_line_parser_does(tmp_path, monkeypatch):
    lines = [f"q1 Q0 doc{i} {i + 1} {1000 - i} run\n" for i in range(300)]
    lines.append("q1 Q0 doc5 301 0.5 run\n")  # many blocks later, and cut from its block by any depth
    path = tmp_path / "a.run"
    path.write_text("".join(lines))
    monkeypatch.setattr(columnar.iter_column_batches, "__kwdefaults__", {"block_bytes": 256})
    for depth in (None, 1, 10):
        assert _same(monkeypatch, formats.read_run, path, depth=depth) == (
            "error",
            f"{path}:301: docid doc5 appears twice for query q1 (first at line 6): a run lists a document once per query; remove one of the two lines",
        )


def test_depth_keeps_every_row_that_may_be_in_the_top_in_any_order_of_ties(tmp_path):
    path = tmp_path / "a.run"
    path.write_text("q1 Q0 a 1 3.0 t\nq1 Q0 b 2 2.0 t\nq1 Q0 c 3 2.0 t\nq1 Q0 d 4 1.0 t\nq2 Q0 a 1 5.0 t\n")
    run = formats.read_run(path, depth=2)
    assert run.docids.tolist() == ["a", "b", "c", "a"]  # b and c tie at the cut: both kept
    assert formats.read_run(path, depth=3).docids.tolist() == ["a", "b", "c", "a"]
    assert len(formats.read_run(path, depth=4)) == 5


def test_scores_read_back_bit_for_bit(tmp_path):
    rng = np.random.default_rng(1)
    values = np.concatenate(
        (
            rng.standard_normal(2000) * 10.0 ** rng.integers(-300, 300, 2000),
            np.frombuffer(rng.bytes(8 * 2000), dtype=np.float64),
        )
    )
    values = values[np.isfinite(values)]
    values = values[np.argsort(-values, kind="stable")]  # (a run's rows are in score order)
    run = formats.Run(np.array(["q"] * len(values)), np.array([f"d{i}" for i in range(len(values))]), values)
    path = tmp_path / "a.run"
    formats.write_run(run, path, tag="t")
    back = formats.read_run(path)
    assert run_format._read_run_columns(path, None) is not None
    assert (back.scores.view(np.uint64) == values.view(np.uint64)).all()


def _decimal_strings(rng: np.random.Generator, n: int) -> list[str]:
    """Numbers written in every way the float grammar allows: reprs, fixed and scientific notation,
    signs, leading zeros, bare dots, long mantissas, exponents near and beyond the exact powers of ten."""
    out = []
    for kind in rng.integers(0, 6, n).tolist():
        x = float(rng.standard_normal() * 10.0 ** int(rng.integers(-8, 9)))
        if kind == 0:
            out.append(repr(x))
        elif kind == 1:
            out.append(f"{x:.{int(rng.integers(0, 10))}f}")
        elif kind == 2:
            out.append(f"{x:.{int(rng.integers(0, 20))}{'eE'[int(rng.integers(0, 2))]}}")
        elif kind == 3:
            out.append(repr(float(10.0 ** rng.uniform(-300, 300))))
        else:
            digits = "".join(map(str, rng.integers(0, 10, int(rng.integers(1, 25)))))
            dot = int(rng.integers(0, len(digits) + 1))
            text = ["", "+", "-"][int(rng.integers(0, 3))] + digits[:dot] + "." + digits[dot:]
            if kind == 5:
                text += f"e{int(rng.integers(-30, 30))}"
            out.append(text)
    return out


def test_scores_read_as_pythons_float_reads_them_bit_for_bit():
    rng = np.random.default_rng(2)
    texts = _decimal_strings(rng, 20_000)
    block = (" ".join(texts) + "\n").encode()
    lengths = np.array([len(t) for t in texts])
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    values = columnar._floats(np.frombuffer(block, dtype=np.uint8), starts, lengths)
    expected = np.array([float(t) for t in texts])
    assert (values.view(np.uint64) == expected.view(np.uint64)).all()


def test_a_run_of_decimal_scores_is_read_without_pyarrow(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "a.run"
    path.write_text(RUN.replace("12.5", "-1.2500e-1"))
    code = (
        "import sys; from clirkit.formats import runs; run = runs._read_run_columns(sys.argv[1], None); "
        "assert run is not None; print('pyarrow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_run_read_from_a_file_is_known_to_list_each_pair_once(tmp_path):
    path = tmp_path / "a.run"
    path.write_text(RUN)
    assert formats.read_run(path)._unique_pairs
    assert formats.Run(np.array(["q"]), np.array(["d"]), np.array([1.0]))._unique_pairs  # (a Run refuses a repeat)
