"""Issue 40, re-check of edge test 10: the command line's words. A word with a space in a word2vec file is said to be
one (N2); ``ttable show`` says that a word giving no term is dropped (N3); ``none`` reads in any case for choices
options too (N5); the help of options taking ``none`` and docs/fuse.md (N6); ``--kappa`` under Borda; the weights'
messages; docs/evaluate.md on the stderr note with ``-o FILE`` (N7) and on ``--ties run``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from test_edges_round10_cli import message_of, one_line_error, table  # noqa: F401 (table: a fixture)

from clirkit.cli import build_parser, main
from clirkit.errors import ClirkitError

ROOT = Path(__file__).resolve().parents[1]


def flat(path: Path) -> str:
    """The text of ``path`` with its line breaks and runs of spaces made single spaces."""
    return " ".join(path.read_text(encoding="utf-8").split())


def help_of(verb: str, option: str) -> str:
    parser = build_parser([verb])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[verb]
    return next(a for a in sub._actions if option in a.option_strings).help


# --------------------------------------------------------------------------- N2: a word with a space


def test_a_word_with_a_space_under_a_header_is_said_to_be_one_not_a_wrong_header(tmp_path):
    path = tmp_path / "sp.vec"
    path.write_text("2 3\nluz 0.1 0.2 0.3\nlight house 0.1 0.2 0.3\n", encoding="utf-8")
    said = message_of(path)
    assert said == f"{path}:" + (
        "3: 4 fields after the word, the header (line 1) announces 3 numbers, and field 1 'house' is not a "
        "number: a word with a space? (a line is one word, then its numbers, separated by single spaces)"
    )
    assert "header's second number" not in said and "\n" not in said


def test_a_vector_of_numbers_of_another_size_than_the_header_still_says_to_fix_the_header(tmp_path):
    path = tmp_path / "dim.vec"
    path.write_text("1 3\nluz 0.1 0.2 0.3 0.4\n", encoding="utf-8")
    assert "a vector of 4 numbers, the header (line 1) announces 3; make the header's second" in message_of(path)


def test_the_growable_vector_buffer_is_not_named_like_the_public_rows():
    from clirkit.scs import encoding

    assert not hasattr(encoding, "_Rows") and hasattr(encoding, "_VectorBuffer")
    assert "averaging matrix" in encoding.Rows.__doc__


# --------------------------------------------------------------------------- N3: a word that gives no term


@pytest.mark.parametrize("word", ["...", "\u200b", "¡!"])
def test_ttable_show_says_a_word_giving_no_term_is_dropped(table, capsys, word):  # noqa: F811
    assert main(["ttable", "show", str(table), word, "light", "-n", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{word}\t(no term once analyzed: DT and PSQ drop it)"
    assert lines[1].startswith("light\t(") and "pass it through" not in lines[0]


def test_dt_drops_a_query_word_giving_no_term_as_ttable_show_says(indexed_dir, table):  # noqa: F811
    queries = indexed_dir / "q.tsv"
    queries.write_text("q1\tlight ...\n", encoding="utf-8")
    plain = indexed_dir / "p.tsv"
    plain.write_text("q1\tlight\n", encoding="utf-8")
    common = ["dt", "--index", str(indexed_dir / "ix.npz"), "--table", str(table), "--source-lang", "en", "-q"]
    assert main([*common, "--queries", str(queries), "-o", str(indexed_dir / "a.run")]) == 0
    assert main([*common, "--queries", str(plain), "-o", str(indexed_dir / "b.run")]) == 0
    assert (indexed_dir / "a.run").read_bytes() == (indexed_dir / "b.run").read_bytes()
    assert (indexed_dir / "a.run").stat().st_size > 0


# --------------------------------------------------------------------------- N5: none in any case


@pytest.mark.parametrize("word", ["None", "NONE", "none"])
def test_a_choices_option_reads_none_in_any_case_as_a_typed_option_does(word):
    from clirkit.cli.params import params_of

    argv = ["boost-train", "--queries", "Q", "--qrels", "R", "-o", "O", "--doc-weighting", word, "--eps", word]
    params = params_of(build_parser(argv).parse_args(argv))
    assert params["doc_weighting"] is None and params["eps"] is None


def test_a_choices_option_still_refuses_other_words(capsys):
    argv = ["boost-train", "--queries", "Q", "--qrels", "R", "-o", "O", "--doc-weighting", "nones"]
    with pytest.raises(SystemExit):
        build_parser(argv).parse_args(argv)
    assert "invalid choice: 'nones'" in capsys.readouterr().err


# --------------------------------------------------------------------------- N6: help and docs/fuse.md


def test_the_help_of_options_taking_none_says_so_unambiguously():
    assert "(0 or none: all)" in help_of("scs-train", "--max-pairs-per-query")
    weights = help_of("aggregate", "--weights")
    assert "none given" not in weights and "or none (the default): equal weights" in weights
    assert "borda: >= 0, not all 0" in weights


def test_the_fusion_guide_says_borda_weights_are_not_all_0_and_lists_the_refusals():
    guide = flat(ROOT / "docs" / "fuse.md")
    assert "Borda: >= 0, not all 0" in guide and "(weights >= 0, not all 0)" in guide
    assert "--measure is read only with --tune: give --tune (with --dev-runs and --dev-qrels), or drop --measure" in (
        guide
    )
    assert "even at its default value (`--measure AP`)" in guide
    assert "--transform applies to interpolation, not borda: drop --transform" in guide
    assert "(the same as `--weights K 1-K`, under either method)" in guide


# --------------------------------------------------------------------------- --kappa under Borda


def test_kappa_under_borda_is_the_two_weights_it_names_and_its_help_says_so(tmp_path):
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d3 1 3 b\nq1 Q0 d2 2 2 b\nq1 Q0 d1 3 1 b\n")
    runs = [str(tmp_path / "a.run"), str(tmp_path / "b.run"), "--method", "borda", "-q"]
    assert main(["aggregate", *runs, "--kappa", "0.3", "-o", str(tmp_path / "k.run")]) == 0
    assert main(["aggregate", *runs, "--weights", "0.3", "0.7", "-o", str(tmp_path / "w.run")]) == 0
    assert (tmp_path / "k.run").read_bytes() == (tmp_path / "w.run").read_bytes()
    kappa = help_of("aggregate", "--kappa")
    assert "the same as --weights kappa 1-kappa (interpolation and borda alike)" in kappa


# --------------------------------------------------------------------------- the weights' messages


@pytest.mark.parametrize(
    "argv, said",
    [
        (["--weights", "1"], "--weights (Fusion's weights) must be one weight per run, got 1 weight for 2 runs\n"),
        (
            ["--weights", "0.5", "0.6"],
            "--weights (Fusion's weights) must be numbers that sum to 1 (interpolation), got 0.5 0.6 (sum 1.1)\n",
        ),
    ],
)
def test_the_weights_messages_say_one_weight_and_end_alike(tmp_path, capsys, argv, said):
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 3 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 3 b\n")
    assert main(["aggregate", str(tmp_path / "a.run"), str(tmp_path / "b.run"), *argv, "-o", "x.run"]) == 2
    assert one_line_error(capsys, "") == f"clirkit: error: {said}"


def test_the_python_weights_messages_have_no_full_stop_before_what_a_caller_adds():
    from clirkit.fusion import borda, interpolate
    from clirkit.run import Run

    a = Run.ranked(["q1"], ["d1"], [1.0])
    b = Run.ranked(["q1"], ["d2"], [1.0])
    with pytest.raises(ClirkitError) as err:
        borda([a, b], [1.0])
    assert str(err.value) == "weights must be one weight per run, got 1 weight for 2 runs"
    with pytest.raises(ClirkitError) as err:
        interpolate([a, b], [0.6, 0.6])
    assert str(err.value) == "weights must be numbers that sum to 1 (interpolation), got 0.6 0.6 (sum 1.2)"


def test_max_options_0_says_auto_as_the_word_typed(tmp_path, capsys):
    common = ["--index", str(tmp_path / "no.npz"), "--queries", "Q", "-o", str(tmp_path / "x.run"), "--table", "T"]
    assert main(["psq", *common, "--max-options", "0"]) == 2
    err = one_line_error(capsys, "--max-options (PSQ's max_options) must be none, an int in the range [1, inf) or ")
    assert "or 'auto'. Got 0 instead." in err and "a str among" not in err


# --------------------------------------------------------------------------- N7 and --ties run: docs/evaluate.md


def test_the_evaluate_guide_says_the_note_also_goes_to_stderr_with_o_file(tmp_path, capsys):
    guide = flat(ROOT / "docs" / "evaluate.md")
    assert "and with `-o FILE` it is also said on stderr" in guide
    (tmp_path / "one.qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "extra.run").write_text("q1 Q0 d1 1 2 t\nqX Q0 d1 1 2 t\n")
    table_file = tmp_path / "tab.txt"
    argv = ["eval", "--qrels", str(tmp_path / "one.qrels"), str(tmp_path / "extra.run"), "-m", "AP"]
    assert main([*argv, "-o", str(table_file)]) == 0
    assert "1 run query not in the qrels, ignored" in table_file.read_text()
    assert "1 run query is not in the qrels and was ignored" in capsys.readouterr().err


def test_ties_run_is_score_order_with_ties_in_file_order_as_the_guide_says(tmp_path, capsys):
    guide = flat(ROOT / "docs" / "evaluate.md")
    assert "`run`: each query in score order as read (64-bit floats), tied scores in the file's order" in guide
    assert "`run`: the file's order |" not in guide
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n")
    # d3 scores highest though written last; d1 and d2 tie, d1 first in the file: d1 ranks 2nd
    (tmp_path / "t.run").write_text("q1 Q0 d1 1 1 t\nq1 Q0 d2 2 1 t\nq1 Q0 d3 3 2 t\n")
    argv = ["eval", "--qrels", str(tmp_path / "q.qrels"), str(tmp_path / "t.run"), "-m", "RR", "--format", "csv"]
    assert main([*argv, "--ties", "run"]) == 0
    assert "0.5" in capsys.readouterr().out.splitlines()[1]
