"""Edge round 30 (a report-only tester on 2026-12-02): each case failed before its fix."""

from __future__ import annotations

import re

import pytest

DOCS = (
    "Gen.1.1\tEn el principio crió Dios los cielos y la tierra.\n"
    "Gen.1.3\tY dijo Dios: Sea la luz: y fué la luz.\n"
    "Gen.1.6\tY dijo Dios: Haya expansión en medio de las aguas, y separe las aguas de las aguas.\n"
    "John.1.5\tY la luz en las tinieblas resplandece; mas las tinieblas no la comprendieron.\n"
)


@pytest.mark.parametrize("verb", ["boost-train", "scs-train"])
def test_training_refuses_judgments_of_documents_not_given_at_their_line(tmp_path, capsys, verb):
    from clirkit.cli import main

    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("LIGHT.1\tLight: created\nWATER.1\tWater: divided\n", encoding="utf-8")
    qrels = tmp_path / "q.qrels"  # Gen.1.33: a typo, no such verse
    qrels.write_text("LIGHT.1 0 Gen.1.3 2\nLIGHT.1 0 Gen.1.33 2\nWATER.1 0 Gen.1.6 2\nOTHER 0 X.1 1\n", "utf-8")
    argv = [verb, "--queries", str(tmp_path / "q.tsv"), "--qrels", str(qrels), "--documents"]
    argv += [str(tmp_path / "docs.tsv"), "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "m.npz")]
    assert main([*argv, "-q"]) == 2
    err = capsys.readouterr().err
    assert err == (  # the judgment of a query not given (OTHER) is not counted: the qrels may judge other queries
        f"clirkit: error: {qrels}:2: 1 of the 3 judgments names a document not in {tmp_path / 'docs.tsv'} (the "
        "first: query LIGHT.1, document Gen.1.33): are these the qrels of these documents?\n"
    )
    assert not (tmp_path / "m.npz").exists()


@pytest.mark.parametrize("verb", ["dt", "psq"])
def test_a_table_that_does_not_fit_is_the_one_line_not_after_the_queries_language(tmp_path, capsys, verb):
    from clirkit.cli import main
    from clirkit.translation import TranslationTable, save_table

    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "es", "-o", str(tmp_path / "es.npz"), "-q"]) == 0
    table = TranslationTable.from_triples(  # es -> en over a Spanish index: the wrong way round
        ["luz", "dios"], ["light", "god"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
    )
    save_table(table, str(tmp_path / "es-en.npz"))
    queries = tmp_path / "q.tsv"  # English queries, read as the table's source language (es): a notice alone
    queries.write_text("".join(f"q{i}\tthe light of the world and the god of the waters\n" for i in range(30)), "utf-8")
    argv = [verb, "--index", str(tmp_path / "es.npz"), "--table", str(tmp_path / "es-en.npz")]
    argv += ["--queries", str(queries), "-o", str(tmp_path / "x.run"), "-q"]
    argv += ["--translate", "queries"] if verb == "psq" else []  # (by default psq translates the documents with it)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"clirkit: error: {tmp_path / 'es-en.npz'}: the table translates into 'en' but the index is in 'es'\n"


def test_datasets_build_from_a_folder_without_the_files_is_one_line(tmp_path, capsys):
    from clirkit.cli import main

    assert main(["datasets", "build", "bible-verse-es-en", "--from", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {tmp_path}: no spaRV1909eb.tsv or ") and err.count("\n") == 1


SPANISH = "".join(
    f"d{i}\tY dijo Dios que la luz era buena, y apartó la luz de las tinieblas en el día {i}.\n" for i in range(40)
)
ENGLISH = "".join(
    f"q{i}\tAnd God saw the light, that it was good, and divided the light from the darkness.\n" for i in range(40)
)
NOTICE = "read as '{}', not '{}': "


def test_index_and_ttable_train_say_when_the_text_reads_as_another_language(tmp_path, capsys):
    from clirkit.cli import main

    (tmp_path / "docs.tsv").write_text(SPANISH, encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "en", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"the documents of {tmp_path / 'docs.tsv'} {NOTICE.format('es', 'en')}")
    assert err.count("\n") == 1
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "es", "-o", str(tmp_path / "ix.npz"), "-q"]) == 0
    assert capsys.readouterr().err == ""
    es, en = tmp_path / "es.txt", tmp_path / "en.txt"
    es.write_text("".join(line.split("\t")[1] + "\n" for line in SPANISH.splitlines()), encoding="utf-8")
    en.write_text("".join(line.split("\t")[1] + "\n" for line in ENGLISH.splitlines()), encoding="utf-8")
    argv = ["ttable", "train", "--source", str(es), "--target", str(en), "-o", str(tmp_path / "t.npz"), "-q"]
    assert main([*argv, "--source-lang", "en", "--target-lang", "es"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        f"the source side of {es} {NOTICE.format('es', 'en')[:-2]}",
        f"the target side of {en} {NOTICE.format('en', 'es')[:-2]}",
    ]
    assert main([*argv, "--source-lang", "es", "--target-lang", "en"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("verb", ["boost-train", "scs-train"])
def test_training_from_files_says_swapped_languages_once_the_inputs_pass(tmp_path, capsys, verb):
    from clirkit.cli import main

    docs, queries, qrels = tmp_path / "docs.tsv", tmp_path / "q.tsv", tmp_path / "q.qrels"
    docs.write_text(SPANISH, encoding="utf-8")
    queries.write_text(ENGLISH, encoding="utf-8")
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(40)), encoding="utf-8")
    argv = [verb, "--queries", str(queries), "--qrels", str(qrels), "--documents", str(docs), "-q"]
    argv += ["--source-lang", "es", "--target-lang", "en", "-o", str(tmp_path / "m.npz")]
    argv += ["--rounds", "2"] if verb == "boost-train" else ["--epochs", "1"]
    assert main(argv) == 0
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        f"the queries of {queries} {NOTICE.format('en', 'es')[:-2]}",
        f"the documents of {docs} {NOTICE.format('es', 'en')[:-2]}",
    ]
    qrels.write_text("q1 0 nowhere 1\n", encoding="utf-8")  # an input refused: its one line, no notice before it
    assert main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_jsonl_records_keep_their_text_keys_and_give_each_key_once(tmp_path):
    from clirkit.errors import ClirkitError
    from clirkit.formats import read_documents, read_queries

    path = tmp_path / "a.jsonl"
    path.write_text('{"id": "d1", "text": "el agua"}\n{"id": "d2", "title": "la luz", "text": "del mundo"}\n', "utf-8")
    with pytest.raises(ClirkitError, match=r"a.jsonl:2: this record has title\+text, which the first lacks: its text"):
        read_documents(path)
    assert read_documents(path, text_fields="text") == (["d1", "d2"], ["el agua", "del mundo"])  # named: as asked
    path.write_text('{"id": "d1", "text": "la luz", "text": "el agua"}\n', encoding="utf-8")
    with pytest.raises(ClirkitError, match=r'^.*a.jsonl:1: key "text" is given twice in one object'):
        read_documents(path)
    path.write_text(
        '{"id": "q1", "description": "water"}\n{"id": "q2", "title": "light", "description": "x"}\n', "utf-8"
    )
    with pytest.raises(ClirkitError, match=r"a.jsonl:2: this record has title, which the first lacks"):
        read_queries(path)
    path.write_text('\ufeff{"id": "d1", "text": "a"}\n', encoding="utf-8")  # a BOM: read as before
    assert read_documents(path) == (["d1"], ["a"])


def test_an_option_that_takes_one_value_given_twice_is_refused(tmp_path, capsys):
    from clirkit.cli import main

    qrels, run = tmp_path / "a.qrels", tmp_path / "a.run"
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    run.write_text("q1 Q0 d1 1 2.0 A\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["eval", "--qrels", str(qrels), f"--qrels={tmp_path / 'b.qrels'}", str(run)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        f"clirkit eval: error: --qrels is given twice (--qrels {qrels}, then --qrels {tmp_path / 'b.qrels'}): give "
        "it once (see clirkit eval --help)\n"
    )
    assert (
        main(["eval", "--qrels", str(qrels), str(run), "-m", "AP", "-m", "RR", "--quiet", "--quiet"]) == 0
    )  # lists, flags
    assert main(["eval", "--qrels", str(qrels), "--", str(run)]) == 0
    with pytest.raises(SystemExit):  # an option of several values: its values after one
        main(["aggregate", str(run), str(run), "--dev-runs", str(run), "--dev-runs", str(run), "-o", str(run)])
    assert capsys.readouterr().err.endswith(": list its values after one --dev-runs (see clirkit aggregate --help)\n")


@pytest.mark.parametrize("given", [1, True, 2.5, b"run.txt"])
def test_a_reader_given_no_path_refuses_it_before_opening_anything(given):
    import os

    from clirkit.errors import ClirkitTypeError
    from clirkit.formats import read_qrels, read_run

    for read in (read_run, read_qrels):
        with pytest.raises(ClirkitTypeError, match=r"^expected a file's path \(a str or os.PathLike\), got "):
            read(given)
    os.fstat(1)  # the caller's stdout still open


def test_a_language_model_overflow_names_alpha_not_bm25s_parameters(tmp_path, capsys):
    from clirkit.cli import main
    from clirkit.translation import TranslationTable, save_table

    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "es", "-o", str(tmp_path / "es.npz"), "-q"]) == 0
    table = TranslationTable.from_triples(
        ["light", "god"], ["luz", "dios"], [1.0, 1.0], params={"source_lang": "en", "target_lang": "es"}
    )
    save_table(table, str(tmp_path / "en-es.npz"))
    (tmp_path / "q.tsv").write_text("q1\tlight\n", encoding="utf-8")
    argv = ["psq", "--index", str(tmp_path / "es.npz"), "--table", str(tmp_path / "en-es.npz"), "--scoring", "lm"]
    argv += ["--queries", str(tmp_path / "q.tsv"), "-o", str(tmp_path / "x.run"), "-q", "--alpha", "1e-308"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "clirkit: error: language-model term weights overflow the float range with alpha=1e-308: take a larger alpha\n"
    )


def test_an_interrupted_command_clears_its_progress_bars_before_its_line():
    import io

    from tqdm import tqdm

    from clirkit.cli import _bars_closed

    out = io.StringIO()
    bar = tqdm(total=7, desc="searching", file=out, leave=False)
    bar.update(1)
    _bars_closed()
    assert bar not in tqdm._instances and out.getvalue().endswith("\r")  # the line cleared: the next starts anew


@pytest.mark.parametrize(
    ("qids", "docids", "problem"),
    [
        (["q 1"], ["d1"], "query id 'q 1', which contains whitespace"),
        (["q1"], ["d\x001"], "document id 'd\\x001', which contains a NUL"),
    ],
)
def test_qrels_made_in_python_refuse_ids_no_qrels_file_can_hold(qids, docids, problem):
    from clirkit.errors import ClirkitError
    from clirkit.run import Qrels

    with pytest.raises(ClirkitError, match=rf"^Qrels row 1 has {re.escape(problem)}"):
        Qrels(qids, docids, [1])


def test_round_30_variants_a_second_look_found(tmp_path, capsys):
    from clirkit.cli import main
    from clirkit.errors import ClirkitError, ClirkitTypeError
    from clirkit.formats import read_documents, read_queries
    from clirkit.formats.topics import read_markup_topics

    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "es", "-o", str(tmp_path / "es.npz"), "-q"]) == 0
    (tmp_path / "q.tsv").write_text("q1\tluz\n", encoding="utf-8")
    search = ["search", "--index", str(tmp_path / "es.npz"), "--queries", str(tmp_path / "q.tsv"), "-q"]
    with pytest.raises(SystemExit):  # a short option's value attached, twice
        main([*search, f"-o{tmp_path / 'a.run'}", f"-o{tmp_path / 'b.run'}"])
    assert "error: -o is given twice (-o " in capsys.readouterr().err
    with pytest.raises(SystemExit):  # an option of the verb's own kind of action
        main(["collection", "--documents", "d.tsv", "--split-seed", "1", "--split-seed", "2"])
    assert "error: --split-seed is given twice (--split-seed 1, then --split-seed 2)" in capsys.readouterr().err
    path = tmp_path / "q5.jsonl"  # a later record's better id key
    path.write_text('{"id": "q1", "text": "agua"}\n{"qid": "q2", "id": "q9", "text": "luz"}\n', encoding="utf-8")
    with pytest.raises(ClirkitError, match=r'q5.jsonl:2: this record has "qid", which the first lacks: its id would'):
        read_queries(path)
    path.write_text('{"id": "d1", "text": "agua"}\n{"docid": "X", "id": "d2", "text": "luz"}\n', encoding="utf-8")
    with pytest.raises(ClirkitError, match=r'q5.jsonl:2: this record has "docid"'):
        read_documents(path)
    with pytest.raises(ClirkitTypeError, match=r"^expected a file's path"):
        read_queries(0.5)
    topic = "<topics><topic {}><identifier>1</identifier><title>la luz</title></topic></topics>"
    for attributes in ('lang="en" lang="es"', 'xml:lang="en" lang="es"'):
        with pytest.raises(ClirkitError, match=r"^t.xml:1: <topic> declares two languages \("):
            read_markup_topics("t.xml", topic.format(attributes), ["title"], lang="en")
