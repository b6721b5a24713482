"""The command line at its edges (independent testing, round 4): an output that names an input (the same path, or
the same file through a symlink or ``./``) or another output is refused before any work, by every verb that writes a
file from inputs (``ttable prune`` alone rewrites its table in place, by design); ``-o FOLDER`` is refused before the
search; an npz ``--table`` is read as npz whatever ``--table-format`` names for ``--table2``; a stopword file holding
NUL bytes is refused as a binary file; a dictionary whose targets all analyze to nothing says it is the target side."""

from __future__ import annotations

import os

import pytest

from clirkit.cli import main
from clirkit.translation import TranslationTable, save_table

FORWARD = TranslationTable.from_triples(
    ["light", "god"], ["luz", "dios"], [1.0, 1.0], params={"source_lang": "en", "target_lang": "es"}
)
REVERSE = TranslationTable.from_triples(
    ["luz", "dios"], ["light", "god"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
)


def one_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("clirkit: error: "), err
    return err


@pytest.fixture
def work(indexed_dir, monkeypatch):
    """``indexed_dir`` (docs.tsv, ix.npz) as the current folder, with q.tsv (English queries), qes.tsv (Spanish
    ones), en-es.npz and es-en.npz (tables), a.run and b.run (runs of qes.tsv), test.qrels, a parallel corpus
    (pe.txt, ps.txt) and its alignments (al.txt)."""
    monkeypatch.chdir(indexed_dir)
    (indexed_dir / "q.tsv").write_text("q1\tthe light\nq2\tgod\n", encoding="utf-8")
    (indexed_dir / "qes.tsv").write_text("q1\tla luz\nq2\tdios\n", encoding="utf-8")
    save_table(FORWARD, "en-es.npz")
    save_table(REVERSE, "es-en.npz")
    for name, text in (("a.run", "qes.tsv"), ("b.run", "qes.tsv")):
        assert main(["search", "--index", "ix.npz", "--queries", text, "-o", name, "--depth", "3", "-q"]) == 0
    (indexed_dir / "test.qrels").write_text("q1 0 Gen.1.3 1\nq2 0 Gen.1.1 1\n", encoding="utf-8")
    (indexed_dir / "pe.txt").write_text("the light\ngod\n", encoding="utf-8")
    (indexed_dir / "ps.txt").write_text("la luz\ndios\n", encoding="utf-8")
    (indexed_dir / "al.txt").write_text("0-0 1-1\n0-0\n", encoding="utf-8")
    return indexed_dir


SEARCH = ["search", "--index", "ix.npz", "--queries", "qes.tsv"]
DT = ["dt", "--index", "ix.npz", "--queries", "q.tsv", "--table", "en-es.npz"]
PSQ = ["psq", "--index", "ix.npz", "--queries", "q.tsv", "--table", "es-en.npz"]
TRAIN = ["ttable", "train", "--source", "pe.txt", "--target", "ps.txt", "--source-lang", "en", "--target-lang", "es"]
ALIGNED = ["ttable", "from-alignments", "--source", "pe.txt", "--target", "ps.txt", "--alignments", "al.txt"]
DATA = ["--queries", "qes.tsv", "--documents", "docs.tsv"]

OVER_AN_INPUT = [
    # (argv, the input written over, the options the message names)
    (PSQ + ["-o", "q.tsv"], "q.tsv", ("-o q.tsv", "--queries q.tsv")),
    (DT + ["-o", "./en-es.npz"], "en-es.npz", ("-o ./en-es.npz", "--table en-es.npz (the same file)")),
    (SEARCH + ["-o", "ix.npz"], "ix.npz", ("-o ix.npz", "--index ix.npz")),
    (SEARCH + ["-o", "link.npz"], "ix.npz", ("-o link.npz", "--index ix.npz (the same file)")),
    (PSQ + ["--save-index", "es-en.npz", "-o", "r.run"], "es-en.npz", ("--save-index es-en.npz", "--table es-en.npz")),
    (["index", "docs.tsv", "--lang", "es", "-o", "docs.tsv"], "docs.tsv", ("-o docs.tsv", "DOCUMENTS docs.tsv")),
    (TRAIN + ["-o", "pe.txt"], "pe.txt", ("-o pe.txt", "--source pe.txt")),
    (TRAIN + ["--direction", "both", "-o", "p.txt"], "p.e2f.txt", ("-o p.e2f.txt", "--target p.e2f.txt")),
    (ALIGNED + ["--source-lang", "en", "--target-lang", "es", "-o", "al.txt"], "al.txt", ("-o al.txt", "--alignments")),
    (["ttable", "convert", "es-en.npz", "-o", "es-en.npz"], "es-en.npz", ("-o es-en.npz", "TABLE es-en.npz")),
    (["aggregate", "a.run", "b.run", "-o", "b.run"], "b.run", ("-o/--output b.run", "RUN b.run")),
    (["eval", "a.run", "--qrels", "test.qrels", "-o", "test.qrels"], "test.qrels", ("-o test.qrels", "--qrels")),
    (["boost-train", *DATA, "--qrels", "test.qrels", "-o", "qes.tsv"], "qes.tsv", ("-o qes.tsv", "--queries")),
    (["boost-rank", "m.npz", *DATA, "--candidates", "a.run", "-o", "a.run"], "a.run", ("-o a.run", "--candidates")),
    (["scs-train", *DATA, "--qrels", "test.qrels", "-o", "docs.tsv"], "docs.tsv", ("-o docs.tsv", "--documents")),
    (["scs-score", "m.npz", *DATA, "-o", "m.npz"], "m.npz", ("-o m.npz", "MODEL m.npz")),
]


@pytest.mark.parametrize(
    "argv, written_over, named", OVER_AN_INPUT, ids=[f"{argv[0]}-{i}" for i, (argv, *_) in enumerate(OVER_AN_INPUT)]
)
def test_an_output_naming_an_input_is_refused_before_the_work_and_the_input_is_kept(
    work, capsys, argv, written_over, named
):
    os.symlink("ix.npz", "link.npz")
    if argv[0] == "ttable" and "--direction" in argv:  # the e2f table's name is also the target corpus
        (work / "ps.txt").rename(work / "p.e2f.txt")
        argv = [a if a != "ps.txt" else "p.e2f.txt" for a in argv]
    if not (work / written_over).exists():
        (work / written_over).write_bytes(b"a model\n")
    before = (work / written_over).read_bytes()
    assert main(argv) == 2  # no -q: any work done would say so on stderr
    err = one_error(capsys)
    assert all(n in err for n in named) and "writing it would replace that input; write elsewhere" in err, err
    assert (work / written_over).read_bytes() == before


def test_psq_refuses_the_same_file_as_its_two_outputs_before_the_translation(work, capsys):
    assert main([*PSQ, "--save-index", "same.npz", "-o", "./same.npz"]) == 2
    assert "-o ./same.npz is also --save-index same.npz: give the two outputs two names" in one_error(capsys)
    assert not (work / "same.npz").exists()


def test_an_output_that_is_stdout_or_a_device_is_not_compared_with_the_inputs(work, capsys):
    assert main([*SEARCH, "-o", "/dev/null", "-q"]) == 0
    assert main([*SEARCH, "-o", "-", "-q"]) == 0 and capsys.readouterr().out.startswith("q1 Q0 ")


def test_ttable_prune_rewrites_its_table_in_place(work, capsys):
    table = TranslationTable.from_triples(
        ["light", "light", "god"], ["luz", "lumbre", "dios"], [0.95, 0.05, 1.0], params=FORWARD.params
    )
    save_table(table, "t.npz")
    assert main(["ttable", "prune", "t.npz", "--min-prob", "0.1", "-o", "t.npz", "-q"]) == 0
    from clirkit.translation import load_table

    assert load_table("t.npz").translations("light") == [("luz", pytest.approx(1.0))]
    (work / "sw.txt").write_text("luz\n", encoding="utf-8")
    assert main(["ttable", "prune", "t.npz", "--target-stopwords", "sw.txt", "-o", "sw.txt"]) == 2
    assert "-o sw.txt is also --target-stopwords sw.txt" in one_error(capsys)


def test_psq_refuses_an_output_folder_before_the_search(work, capsys):
    (work / "dir.npz").mkdir()
    assert main([*PSQ, "-o", "dir.npz"]) == 2  # no -q: a search done first would say so
    assert one_error(capsys) == "clirkit: error: dir.npz: is a folder; give a file name to write (-o)\n"
    assert main(["psq", "--index", "ix.npz", "--table", "es-en.npz", "--save-index", "dir.npz"]) == 2
    assert "dir.npz: is a folder; give a file name to write (--save-index)" in one_error(capsys)


def test_an_npz_table_is_read_as_npz_whatever_table_format_names_for_table2(work, capsys):
    text = "light luz\nlight lumbre\ngod dios\n"
    (work / "words.txt").write_text(text, encoding="utf-8")  # a MUSE file only --table-format muse tells
    (work / "en-es.dict").write_text(text, encoding="utf-8")  # the same, told by its name
    both = ["dt", "--index", "ix.npz", "--queries", "q.tsv", "--table", "en-es.npz"]
    argv = ["psq", *both[1:], "--lambda", "0.3", "-q"]
    assert main([*argv, "--table2", "words.txt", "--table-format", "muse", "-o", "given.run"]) == 0
    assert main([*argv, "--table2", "en-es.dict", "-o", "auto.run"]) == 0
    assert (work / "given.run").read_bytes() == (work / "auto.run").read_bytes() != b""


def test_a_stopword_file_holding_nul_bytes_is_refused_as_a_binary_file(work, capsys):
    (work / "stop.txt").write_bytes(b"the\n\x00\n")
    assert main([*DT, "--source-stopwords", "stop.txt", "-o", "r.run"]) == 2
    assert one_error(capsys).endswith(
        "stop.txt:2: NUL bytes: not a UTF-8 text file (is it a binary file?); check the path\n"
    )
    assert main(["index", "docs.tsv", "--lang", "es", "--stopwords", "stop.txt", "-o", "x.npz", "-q"]) == 2
    assert "stop.txt:2: NUL bytes" in one_error(capsys) and not (work / "x.npz").exists()


def test_a_dictionary_whose_targets_all_analyze_to_nothing_says_it_is_the_target_side(work, capsys):
    (work / "pairs.tsv").write_text("el\t@\nla\t!\n", encoding="utf-8")
    argv = ["ttable", "convert", "pairs.tsv", "--format", "pairs", "--source-lang", "es", "--target-lang", "en"]
    assert main([*argv, "-o", "p.npz"]) == 2
    assert one_error(capsys).endswith(
        "pairs.tsv: no usable translation pairs in this dictionary (2 pairs read, 2 whose target side the analysis "
        "leaves empty); check that its target side, the documents' language, holds words (punctuation and symbols "
        "analyze to nothing), and its languages\n"
    )
    (work / "pairs.tsv").write_text("@\tthe\n!\tlight\n", encoding="utf-8")
    assert main([*argv, "-o", "p.npz"]) == 2
    assert "2 whose source side the analysis leaves empty); check that its source side" in one_error(capsys)
