"""Issue 40, edge test 10: the command line. A word2vec file cut short is refused and scs-train says how many words
its vectors start (7); ``eval/plot_runs.py kappa`` reads the sweep ``aggregate --tune --sweep-csv`` writes (8); an
option whose help or message offers none takes the word (10); ``ttable show`` refuses an empty WORD and shows each
term of a WORD the analysis cuts in several (11); docs/evaluate.md says where the note of ignored run queries goes
(12).

The texts are the verses and queries of tests/test_boost_cli.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from test_boost_cli import write_files

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.scs import read_word_vectors

ROOT = Path(__file__).resolve().parents[1]


def one_line_error(capsys, prefix: str) -> str:
    captured = capsys.readouterr()
    assert captured.err.startswith(f"clirkit: error: {prefix}") and captured.err.count("\n") == 1, captured.err
    assert captured.out == ""
    return captured.err


def message_of(path: Path, dim: int = 3) -> str:
    with pytest.raises(ClirkitError) as err:
        read_word_vectors(path, dim)
    return str(err.value)


# --------------------------------------------------------------------------- finding 7: word2vec headers


def test_a_word2vec_file_holding_fewer_vectors_than_its_header_announces_is_refused(tmp_path):
    path = tmp_path / "trunc.vec"
    path.write_text("1000 3\nluz 0.1 0.2 0.3\ndios 0.1 0.2 0.3\n", encoding="utf-8")
    assert message_of(path) == (
        f"{path}: the header announces 1,000 vectors, the file holds 2 (is it truncated?); download or export the "
        "vectors again, or make the header's first number 2"
    )


def test_a_word2vec_file_holding_more_vectors_than_its_header_announces_is_refused_at_the_first_extra(tmp_path):
    path = tmp_path / "more.vec"
    path.write_text("\n1 3\nluz 0.1 0.2 0.3\ndios 0.1 0.2 0.3\ncielo 1 2 3\n", encoding="utf-8")
    assert message_of(path) == (
        f"{path}:4: a vector more than the header (line 2) announces (1); make the header's first number the count "
        "of vectors, or remove the extra lines"
    )


def test_a_word2vec_header_whose_size_differs_from_the_vectors_names_both_lines(tmp_path):
    path = tmp_path / "dim.vec"
    path.write_text("2 4\nluz 0.1 0.2 0.3\ndios 0.1 0.2 0.3\n", encoding="utf-8")
    assert message_of(path) == (
        f"{path}:2: a vector of 3 numbers, the header (line 1) announces 4; make the header's second number the "
        "vectors' size"
    )
    path.write_text("2 300\n" + "".join(f"w{i} " + " ".join(["0.5"] * 300) + "\n" for i in range(2)))
    assert message_of(path).startswith(f"{path}:2: expected a word and 3 numbers, got 301 fields (the model's --dim")


def test_a_word2vec_header_of_huge_numbers_is_one_line_not_a_traceback(tmp_path):
    path = tmp_path / "huge.vec"
    path.write_text("9" * 5000 + " 3\nluz 0.1 0.2 0.3\n", encoding="utf-8")
    assert message_of(path) == f"{path}:1: a header of numbers too large to be a count and a size; give 'count dim'"


def test_a_file_true_to_its_header_reads_as_before_into_one_float_array(tmp_path):
    path = tmp_path / "ok.vec"
    rows = np.arange(3000 * 3, dtype=np.float64).reshape(3000, 3) / 8  # more rows than the first block holds
    path.write_text("3000 3\n" + "".join(f"w{i} {a} {b} {c}\n" for i, (a, b, c) in enumerate(rows.tolist())))
    words, vectors = read_word_vectors(path, 3)
    assert words.tolist() == [f"w{i}" for i in range(3000)] and vectors.dtype == np.float64
    np.testing.assert_array_equal(vectors, rows)
    path.write_text("luz 0.1 0.2 0.3\n", encoding="utf-8")  # no header: as many vectors as lines
    assert read_word_vectors(path, 3)[0].tolist() == ["luz"]


def test_scs_train_refuses_a_truncated_vector_file_and_says_how_many_words_the_vectors_start(tmp_path, capsys):
    q, qrels, docs = write_files(tmp_path)
    trunc, good, qvec = tmp_path / "trunc.vec", tmp_path / "es.vec", tmp_path / "en.vec"
    trunc.write_text("1000 3\nluz 0.1 0.2 0.3\ndios 0.1 0.2 0.3\n", encoding="utf-8")
    good.write_text("2 3\nluz 0.1 0.2 0.3\ndios 0.1 0.2 0.3\n", encoding="utf-8")
    qvec.write_text("light 1 0 0\nnowhere 0 1 0\n", encoding="utf-8")
    train = ["scs-train", "--queries", q, "--qrels", qrels, "--documents", docs, "--dim", "3", "--epochs", "1"]
    train += ["--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "m.npz")]
    assert main([*train, "--doc-vectors", str(trunc), "-q"]) == 2
    one_line_error(capsys, f"{trunc}: the header announces 1,000 vectors, the file holds 2 (is it truncated?)")
    assert not (tmp_path / "m.npz").exists()
    assert main([*train, "--doc-vectors", str(good), "--query-vectors", str(qvec)]) == 0
    err = capsys.readouterr().err
    said = re.search(
        r"scs: word vectors start (\d+) of the (\d+) query words and (\d+) of the (\d+) document words", err
    )
    assert said, err
    found_q, n_q, found_d, n_d = map(int, said.groups())
    assert (found_q, found_d) == (1, 2) and n_q > 1 and n_d > 2  # light; luz and dios
    assert main([*train, "--doc-vectors", str(good), "-q"]) == 0
    assert capsys.readouterr().err == ""  # --quiet: not a word
