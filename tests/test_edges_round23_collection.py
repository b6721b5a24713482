"""Edge round 23, `clirkit collection` and `clirkit datasets build`: a split named twice in `--queries`/`--qrels`
(a dict kept the last file), the notes of a collection only checked (no -o: no name) naming the files given, the
singular for one query, `datasets build --from` a missing folder refused before its progress line, and a parallel
corpus with no pair holding text refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from clirkit.cli import main


def _files(folder: Path) -> dict[str, str]:
    """The tester's files: four documents, qrels of q1..q4, queries dev (qa, qb) and test (qt)."""
    texts = {
        "docs.tsv": "d1\tel perro come\nd2\tla casa blanca\nd3\tel gato\nd4\tun libro\n",
        "qrels": "q1 0 d1 1\nq2 0 d2 1\nq2 0 d3 1\nq3 0 d4 2\nq4 0 d1 0\n",
        "qa.tsv": "q1\tdog\n",
        "qb.tsv": "q2\thouse\n",
        "qt.tsv": "q3\tbook\nq4\tred\n",
    }
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return {name: str(folder / name) for name in texts}


def _languages() -> list[str]:
    return ["--source-lang", "en", "--target-lang", "es"]


def _error(capsys) -> str:
    """The one line of stderr, which is an error."""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("clirkit: error: "), err
    return err[len("clirkit: error: ") : -1]


# -- 2: a split named twice -----------------------------------------------------------------------------------


def test_queries_naming_a_split_twice_are_refused_and_nothing_is_written(tmp_path, capsys):
    f = _files(tmp_path)
    out = tmp_path / "dupsplit"
    argv = ["collection", "--documents", f["docs.tsv"], "--qrels", f["qrels"], *_languages(), "-o", str(out)]
    queries = ["--queries", f"dev={f['qa.tsv']}", "--queries", f"dev={f['qb.tsv']}", "--queries", f"test={f['qt.tsv']}"]
    assert main([*argv, *queries]) == 2
    assert _error(capsys) == (
        f"--queries names the split 'dev' twice ({f['qa.tsv']} and {f['qb.tsv']}); give each split once, "
        "e.g. --queries dev=FILE --queries test=FILE"
    )
    assert not out.exists()


def test_the_repetition_is_said_before_the_missing_test_split(tmp_path, capsys):
    f = _files(tmp_path)
    argv = ["collection", "--documents", f["docs.tsv"], "--qrels", f["qrels"], *_languages()]
    assert main([*argv, "--queries", f"dev={f['qa.tsv']}", "--queries", f"dev={f['qt.tsv']}"]) == 2
    assert _error(capsys).startswith("--queries names the split 'dev' twice (")


def test_qrels_naming_a_split_twice_are_refused(tmp_path, capsys):
    f = _files(tmp_path)
    (tmp_path / "other").write_text("q3 0 d2 1\n", encoding="utf-8")
    argv = ["collection", "--documents", f["docs.tsv"], "--queries", f"test={f['qt.tsv']}", *_languages()]
    assert main([*argv, "--qrels", f"test={f['qrels']}", "--qrels", f"test={tmp_path / 'other'}"]) == 2
    assert _error(capsys) == (
        f"--qrels names the split 'test' twice ({f['qrels']} and {tmp_path / 'other'}); give each split once, "
        "e.g. --qrels dev=FILE --qrels test=FILE"
    )


# -- 10: the notes of a collection only checked, the singular ------------------------------------------------


def test_notes_of_a_collection_only_checked_name_the_qrels_file_and_say_one_in_the_singular(tmp_path, capsys):
    f = _files(tmp_path)
    (tmp_path / "q4.tsv").write_text("q3\tbook\nq4\tred\nq5\tdog\nq6\tcat\n", encoding="utf-8")
    (tmp_path / "qr").write_text("q1 0 d1 1\nq3 0 d4 2\nq4 0 d4 1\nq5 0 d4 1\n", encoding="utf-8")
    argv = ["collection", "--documents", f["docs.tsv"], "--queries", str(tmp_path / "q4.tsv"), *_languages()]
    assert main([*argv, "--qrels", str(tmp_path / "qr")]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"{tmp_path / 'qr'}: 1 judged query is not in the queries (e.g. q1): left out",
        f"{tmp_path / 'qr'}: 1 of the 4 test queries has no judgment (trec_eval leaves them out)",
    ]
    assert main([*argv, "--qrels", f["qrels"]]) == 0  # two of each: the plural
    assert capsys.readouterr().err.splitlines() == [
        f"{f['qrels']}: 2 judged queries are not in the queries (e.g. q1): left out",
        f"{f['qrels']}: 2 of the 4 test queries have no judgment (trec_eval leaves them out)",
    ]


@pytest.mark.parametrize("named", [["--name", "mine"], ["-o", "OUT"]])
def test_notes_of_a_named_collection_name_it(tmp_path, capsys, named):
    f = _files(tmp_path)
    named = [str(tmp_path / "mine") if n == "OUT" else n for n in named]
    argv = ["collection", "--documents", f["docs.tsv"], "--queries", f["qt.tsv"], "--qrels", f["qrels"]]
    (tmp_path / "qr").write_text("q3 0 d4 2\n", encoding="utf-8")
    argv[-1] = str(tmp_path / "qr")
    assert main([*argv, *_languages(), *named]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "mine: 1 of the 2 test queries has no judgment (trec_eval leaves them out)"
    ]


ENGLISH = "the dog and the cat are in the house with the children of the town"
SPANISH = "el perro y el gato están en la casa con los niños de la ciudad"


def test_language_notes_of_a_collection_only_checked_name_its_files(tmp_path, capsys):
    """English documents declared Spanish and Spanish queries declared English: the notes name the files given,
    not the documents file's stem (``the documents of docs``)."""
    (tmp_path / "docs.tsv").write_text("".join(f"d{i}\t{ENGLISH} {i}\n" for i in range(40)), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"q{i}\t{SPANISH} {i}\n" for i in range(40)), encoding="utf-8")
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(40)), encoding="utf-8")
    argv = ["collection", "--documents", str(tmp_path / "docs.tsv"), "--queries", str(tmp_path / "q.tsv")]
    assert main([*argv, "--qrels", str(tmp_path / "qrels"), *_languages()]) == 0
    err = capsys.readouterr().err
    assert f"the documents of {tmp_path / 'docs.tsv'} read as 'en', not 'es'" in err
    assert f"the queries of {tmp_path / 'q.tsv'} read as 'es', not 'en'" in err
    assert main([*argv, "--qrels", str(tmp_path / "qrels"), *_languages(), "--name", "mine"]) == 0
    err = capsys.readouterr().err
    assert "the documents of mine read as 'en'" in err and "the queries of mine read as 'es'" in err


# -- 10: datasets build --from a missing folder --------------------------------------------------------------


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_build_from_a_missing_folder_is_one_error_line_before_any_progress(tmp_path, capsys, quiet):
    missing = tmp_path / "nonexist"
    assert main(["datasets", "build", "multi30k-de-en", "--from", str(missing), *quiet]) == 2
    error = _error(capsys)
    assert error.startswith(f"{missing}: no such folder; multi30k-de-en is built from Multi30K's data/task1")


# -- 10: a parallel corpus with no pair holding text -----------------------------------------------------------


def _with_parallel(tmp_path, files: list[str]) -> list[str]:
    f = _files(tmp_path)
    argv = ["collection", "--documents", f["docs.tsv"], "--queries", f["qt.tsv"], "--qrels", f["qrels"], "-q"]
    return [*argv, *_languages(), "--parallel", *(str(tmp_path / n) for n in files)]


def test_two_parallel_files_of_empty_lines_are_refused(tmp_path, capsys):
    (tmp_path / "src").write_text("\n \n", encoding="utf-8")
    (tmp_path / "tgt").write_text("\n\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main([*_with_parallel(tmp_path, ["src", "tgt"]), "-o", str(out)]) == 2
    assert _error(capsys) == (
        f"{tmp_path / 'src'}: no sentence pair: it and {tmp_path / 'tgt'} hold 2 empty lines each; check the paths "
        "(the two sides of a parallel corpus, one sentence a line)"
    )
    assert not out.exists()


def test_two_empty_parallel_files_are_refused(tmp_path, capsys):
    (tmp_path / "src").write_text("", encoding="utf-8")
    (tmp_path / "tgt").write_text("", encoding="utf-8")
    assert main(_with_parallel(tmp_path, ["src", "tgt"])) == 2
    assert _error(capsys) == (
        f"{tmp_path / 'src'}: no sentence pair: it and {tmp_path / 'tgt'} hold no line; check the paths "
        "(the two sides of a parallel corpus, one sentence a line)"
    )


def test_a_parallel_file_of_empty_pairs_is_refused(tmp_path, capsys):
    (tmp_path / "par.tsv").write_text("p1\t\t\np2\t \t\n", encoding="utf-8")
    assert main(_with_parallel(tmp_path, ["par.tsv"])) == 2
    assert _error(capsys) == (
        f"{tmp_path / 'par.tsv'}: no sentence pair: the source and target of its 2 lines are empty; check the path "
        "(a parallel file holds id TAB source TAB target lines)"
    )


def test_pairs_with_text_on_one_side_are_pairs(tmp_path, capsys):
    (tmp_path / "src").write_text("the dog\n\n", encoding="utf-8")
    (tmp_path / "tgt").write_text("\nel gato\n", encoding="utf-8")
    assert main(_with_parallel(tmp_path, ["src", "tgt"])) == 0
    assert "parallel pairs 2" in capsys.readouterr().out
