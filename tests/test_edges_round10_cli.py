"""Issue 40, edge test 10: the command line. A word2vec file cut short is refused and scs-train says how many words
its vectors start (7); ``eval/plot_runs.py kappa`` reads the sweep ``aggregate --tune --sweep-csv`` writes (8); an
option whose help or message offers none takes the word (10); ``ttable show`` refuses an empty WORD and shows each
term of a WORD the analysis cuts in several (11); docs/evaluate.md says where the note of ignored run queries goes
(12).

The texts are the verses and queries of tests/test_boost_cli.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
from test_boost_cli import write_files

from clirkit.cli import build_parser, main
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


# --------------------------------------------------------------------------- finding 8: plot_runs.py kappa


def plot_runs():
    spec = importlib.util.spec_from_file_location("plot_runs", ROOT / "eval" / "plot_runs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tiny_runs(tmp_path) -> dict[str, str]:
    files = {
        "a.run": "q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\nq2 Q0 d5 1 3 a\nq2 Q0 d4 2 2 a\nq2 Q0 d6 3 1 a\n",
        "b.run": "q1 Q0 d2 1 3 b\nq1 Q0 d1 2 2 b\nq1 Q0 d9 3 1 b\nq2 Q0 d4 1 3 b\nq2 Q0 d5 2 2 b\nq2 Q0 d7 3 1 b\n",
        "c.run": "q1 Q0 d3 1 3 c\nq2 Q0 d4 1 2 c\n",
        "q.qrels": "q1 0 d1 1\nq2 0 d5 1\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return {name: str(tmp_path / name) for name in files}


def test_the_readme_kappa_plot_reads_the_sweep_csv_of_aggregate_tune(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    readme = (ROOT / "eval" / "README.md").read_text(encoding="utf-8")
    assert "python eval/plot_runs.py kappa sweep.csv -o kappa.png" in readme
    f = tiny_runs(tmp_path)
    sweep, png = tmp_path / "sweep.csv", tmp_path / "kappa.png"
    tune = ["aggregate", f["a.run"], f["b.run"], "--tune", "--dev-runs", f["a.run"], f["b.run"]]
    tune += ["--dev-qrels", f["q.qrels"], "--measure", "RR", "--step", "0.25"]
    assert main([*tune, "--sweep-csv", str(sweep), "-o", str(tmp_path / "t.run"), "-q"]) == 0
    assert sweep.read_text().splitlines()[0] == "w1,w2,RR"
    capsys.readouterr()
    assert plot_runs().main(["kappa", str(sweep), "-o", str(png)]) == 0
    # kappa is w1, the weight of the first run (--kappa K: K * run1 + (1 - K) * run2), the run that finds both
    # relevant documents first: RR 0.5 with little of it, 1 with much
    assert capsys.readouterr().out == "RR: best kappa 0.75 (1.0000)\n"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kappas, names, values = plot_runs().read_kappa_sweep(str(sweep))
    assert kappas.tolist() == [0, 0.25, 0.5, 0.75, 1] and names == ["RR"]
    assert values[:, 0].tolist() == [0.5, 0.5, 0.75, 1, 1]


def test_plot_runs_kappa_still_reads_a_kappa_header_and_refuses_three_runs(tmp_path, capsys):
    from clirkit.tuning import KappaSweep

    old = tmp_path / "kappa.csv"
    sweep = KappaSweep(np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]]), np.array([0.1, 0.3, 0.2]), "AP", ("none",) * 2)
    old.write_text(sweep.to_csv())
    assert plot_runs().main(["kappa", str(old)]) == 0
    assert capsys.readouterr().out == "AP: best kappa 0.5 (0.3000)\n"
    f = tiny_runs(tmp_path)
    three = tmp_path / "three.csv"
    runs = [f["a.run"], f["b.run"], f["c.run"]]
    tune = ["aggregate", *runs, "--tune", "--dev-runs", *runs, "--dev-qrels", f["q.qrels"], "--step", "0.5"]
    assert main([*tune, "--sweep-csv", str(three), "-o", str(tmp_path / "t.run"), "-q"]) == 0
    with pytest.raises(SystemExit) as exit_:
        plot_runs().main(["kappa", str(three)])
    assert str(exit_.value) == (
        f"plot_runs: {three}: a sweep of 3 runs (w1,w2,w3) has no kappa, the weight of the first of two runs; plot "
        "a sweep of two runs (clirkit aggregate RUN1 RUN2 --tune --sweep-csv)"
    )


# --------------------------------------------------------------------------- finding 10: none


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("table")
    pairs = [
        ("the light", "la luz"),
        ("the house", "la casa"),
        ("light of the house", "luz de la casa"),
        ("a house", "una casa"),
        ("light", "luz"),
    ] * 3
    (folder / "en.txt").write_text("".join(f"{e}\n" for e, _ in pairs), encoding="utf-8")
    (folder / "es.txt").write_text("".join(f"{s}\n" for _, s in pairs), encoding="utf-8")
    out = folder / "en-es.npz"
    train = ["ttable", "train", "--source", str(folder / "en.txt"), "--target", str(folder / "es.txt")]
    assert main([*train, "--source-lang", "en", "--target-lang", "es", "-o", str(out), "-q"]) == 0
    return out


def options():
    """``(verb words, action)`` of every option of every verb."""

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, [*path, name])
            elif action.option_strings and action.nargs != 0:
                yield path, action

    return list(walk(build_parser(None), []))


def offers_none(action) -> bool:
    """Whether an option's help or parameter offers none: "(none: ...)", "none (the default)", or None allowed."""
    from clirkit.paramgroups import flat_constraints

    system = getattr(action, "system", None)
    allowed = flat_constraints(system).get(action.dest.removeprefix("param__"), []) if system else []
    return re.search(r"\bnone\b", action.help or "") is not None or (
        isinstance(allowed, list) and any(c is None for c in allowed)
    )


def test_every_option_whose_help_or_parameter_offers_none_takes_the_word():
    from clirkit.cli.common import BadValue

    checked = []
    for path, action in options():
        if not offers_none(action):
            continue
        if action.choices is not None:
            assert "none" in action.choices, (path, action.option_strings)
        elif action.type is not None:
            value = action.type("none")
            assert not isinstance(value, BadValue), (path, action.option_strings, value)
        checked.append(" ".join([*path, max(action.option_strings, key=len)]))
    for option in (
        "search --k3",
        "psq --max-options",
        "psq --source-lang",
        "dt --source-lang",
        "ttable prune --max-options",
        "boost-train --doc-weighting",
        "boost-train --eps",
        "scs-train --mse-targets",
    ):
        assert option in checked


@pytest.mark.parametrize(
    "argv, name",
    [
        (["search", "--index", "I", "--queries", "Q", "-o", "O", "--k3", "none"], "k3"),
        (["psq", "--index", "I", "--queries", "Q", "-o", "O", "--max-options", "NONE"], "max_options"),
        (["psq", "--index", "I", "--queries", "Q", "-o", "O", "--source-lang", "none"], "source_lang"),
        (["dt", "--index", "I", "--queries", "Q", "-o", "O", "--table", "T", "--source-lang", "none"], "source_lang"),
        (["ttable", "prune", "T", "-o", "O", "--max-options", "none"], "max_options"),
        (["boost-train", "--queries", "Q", "--qrels", "R", "-o", "O", "--doc-weighting", "none"], "doc_weighting"),
        (["boost-train", "--queries", "Q", "--qrels", "R", "-o", "O", "--eps", "none"], "eps"),
        (["boost-train", "--queries", "Q", "--qrels", "R", "-o", "O", "--candidate-depth", "none"], "candidate_depth"),
        (["scs-train", "--queries", "Q", "--qrels", "R", "-o", "O", "--mse-targets", "none"], "mse_targets"),
    ],
)
def test_the_word_none_sets_the_parameter_to_none(argv, name):
    from clirkit.cli.params import params_of

    assert params_of(build_parser(argv).parse_args(argv))[name] is None


def test_none_searches_as_the_default_it_names(indexed_dir, table):
    es, en = indexed_dir / "es.tsv", indexed_dir / "en.tsv"
    es.write_text("q1\tluz luz tinieblas\nq2\tla casa\n", encoding="utf-8")
    en.write_text("q1\tlight light house\nq2\tthe house\n", encoding="utf-8")
    nones = ["--k3", "none", "--source-lang", "none", "--max-options", "none"]
    for verb, queries, words in ((["search"], es, nones[:2]), (["psq", "--table", str(table)], en, nones)):
        common = [*verb, "--index", str(indexed_dir / "ix.npz"), "--queries", str(queries), "-q"]
        assert main([*common, "-o", str(indexed_dir / "a.run")]) == 0
        assert main([*common, "-o", str(indexed_dir / "b.run"), *words]) == 0
        assert (indexed_dir / "a.run").read_bytes() == (indexed_dir / "b.run").read_bytes()
        assert (indexed_dir / "a.run").stat().st_size > 0


def test_no_command_line_message_offers_python_none(tmp_path, capsys):
    common = ["--index", str(tmp_path / "no.npz"), "--queries", "Q", "-o", str(tmp_path / "x.run")]
    assert main(["psq", *common, "--table", "T", "--max-options", "0"]) == 2
    err = one_line_error(capsys, "--max-options (PSQ's max_options) must be none, an int in the range [1, inf)")
    assert "None" not in err
    assert main(["psq", *common, "--table", "T", "--max-options", "x"]) == 2
    one_line_error(capsys, "--max-options must be an int in the range [1, inf), 'auto' or none, got x")
    assert main(["search", *common, "--k3", "x"]) == 2
    one_line_error(capsys, "--k3 must be a float in the range [0.0, inf) or none, got x")
    assert main(["scs-train", "--queries", "Q", "--qrels", "R", "-o", "O", "--mse-targets", "none", "0.5"]) == 2
    one_line_error(capsys, "--mse-targets must be none alone, or values without none, got none 0.5")


# --------------------------------------------------------------------------- finding 11: ttable show


@pytest.mark.parametrize("word", ["", "  "])
def test_ttable_show_refuses_an_empty_word(table, capsys, word):
    assert main(["ttable", "show", str(table), "light", word]) == 2
    one_line_error(capsys, f"WORD {word!r} is empty: give the source word to look up")


def test_ttable_show_shows_each_term_of_a_word_the_analysis_cuts_in_two(table, capsys):
    assert main(["ttable", "show", str(table), "light house", "-n", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "light house -> light, hous\t(2 terms: DT and PSQ translate each)"
    assert lines[1].startswith("light\t(") and lines[2].startswith("  luz\t")
    assert lines[3].startswith("hous\t(") and lines[4].startswith("  cas\t") and len(lines) == 5
    assert main(["ttable", "show", str(table), "lights", "-n", "1"]) == 0  # one term: as before
    assert capsys.readouterr().out.splitlines()[0].startswith("lights -> light\t(")


# --------------------------------------------------------------------------- finding 12: docs/evaluate.md


def test_the_evaluate_guide_says_where_the_note_of_ignored_run_queries_goes(tmp_path, capsys):
    guide = " ".join((ROOT / "docs" / "evaluate.md").read_text(encoding="utf-8").split())
    assert "are ignored, and said on stderr" not in guide
    assert "a note under the table says how many, so it goes where the table goes (stdout or `-o FILE`)" in guide
    assert "`csv` and `json`, whose output has no notes, say it on stderr" in guide
    (tmp_path / "one.qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "extra.run").write_text("q1 Q0 d1 1 2 t\nqX Q0 d1 1 2 t\n")
    argv = ["eval", "--qrels", str(tmp_path / "one.qrels"), str(tmp_path / "extra.run"), "-m", "AP"]
    note = "1 run query not in the qrels, ignored"
    for fmt, on_stdout in (("text", True), ("markdown", True), ("csv", False), ("json", False)):
        assert main([*argv, "--format", fmt]) == 0
        captured = capsys.readouterr()
        assert (note in captured.out, "not in the qrels" in captured.err) == (on_stdout, not on_stdout), fmt
