"""The languages of texts told by their stopwords: swapped languages of a collection, queries given to a table of
another language (issue 40, item 7). Real slices of the bundled collection."""

from __future__ import annotations

import pytest

from clirkit import datasets
from clirkit.cli import main
from clirkit.langcheck import language_notice


@pytest.fixture(scope="module")
def nave():
    c = datasets.load("nave-en-es")
    docids, texts = c.documents()
    queries = c.queries("dev")
    return dict(zip(docids[:400], texts[:400])), dict(list(queries.items())[:400])


def test_texts_read_as_their_language_give_no_notice_and_swapped_ones_name_the_language(nave):
    docs, queries = nave
    assert language_notice(list(docs.values()), "es", "docs") is None
    assert language_notice(list(queries.values()), "en", "queries") is None
    notice = language_notice(list(queries.values()), "es", "the queries")
    assert notice.startswith("the queries read as 'en', not 'es': ") and notice.endswith("(are the languages swapped?)")
    assert language_notice(list(docs.values()), "zh", "docs").startswith("docs read as 'es', not 'zh'")
    assert language_notice(["我们今天去北京大学看书"] * 300, "zh", "zh") is None  # no list: nothing to tell
    assert language_notice(["la casa"], "en", "few") is None  # too few words to tell


def test_a_collection_with_its_languages_swapped_says_so_in_one_line(tmp_path, capsys, nave):
    docs, queries = nave
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in docs.items()), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()), encoding="utf-8")
    first = next(iter(docs))
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {first} 1\n" for q in queries), encoding="utf-8")
    args = [
        "collection",
        "--documents",
        str(tmp_path / "docs.tsv"),
        "--queries",
        str(tmp_path / "q.tsv"),
        "--qrels",
        str(tmp_path / "qrels.txt"),
        "--split",
        "dev=0.5,test=0.5",
    ]
    assert main([*args, "--source-lang", "en", "--target-lang", "es"]) == 0
    assert "read as" not in capsys.readouterr().err
    assert main([*args, "--source-lang", "es", "--target-lang", "en", "-q"]) == 0  # said under --quiet too
    err = capsys.readouterr().err
    assert "the documents of " in err and "read as 'es', not 'en'" in err
    assert "the queries of " in err and "read as 'en', not 'es'" in err


def test_queries_given_to_a_table_of_another_language_say_so(tmp_path, capsys, nave):
    docs, queries = nave
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in docs.items()), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()), encoding="utf-8")
    (tmp_path / "en-es.txt").write_text("light luz\nwater agua\n", encoding="utf-8")
    index, table = tmp_path / "es.npz", tmp_path / "t.npz"
    assert main(["index", str(tmp_path / "docs.tsv"), "--lang", "es", "-o", str(index), "-q"]) == 0
    # a table that says its source words are French, given English queries (and an index of its target language)
    assert (
        main(
            [
                "ttable",
                "convert",
                str(tmp_path / "en-es.txt"),
                "--format",
                "muse",
                "--source-lang",
                "fr",
                "--target-lang",
                "es",
                "-o",
                str(table),
                "-q",
            ]
        )
        == 0
    )
    for verb in ("dt", "psq"):
        capsys.readouterr()
        assert (
            main(
                [
                    verb,
                    "--index",
                    str(index),
                    "--queries",
                    str(tmp_path / "q.tsv"),
                    "--table",
                    str(table),
                    "-o",
                    str(tmp_path / f"{verb}.run"),
                    "-q",  # said under --quiet too
                ]
            )
            == 0
        )
        assert f"the queries of {tmp_path / 'q.tsv'} read as 'en', not 'fr'" in capsys.readouterr().err, verb


def test_an_experiment_stopped_by_a_check_says_only_its_error_line(tmp_path, capsys, nave):
    """Edge round 29: the swapped languages' notices came before the error of the table that is the other way
    round: three lines. Held until the systems are built, they are said only when the run goes on."""
    docs, queries = nave
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in docs.items()), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()), encoding="utf-8")
    first = next(iter(docs))
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {first} 1\n" for q in queries), encoding="utf-8")
    (tmp_path / "en-es.txt").write_text("light luz\nwater agua\n", encoding="utf-8")
    convert = ["ttable", "convert", str(tmp_path / "en-es.txt"), "--format", "muse"]
    assert main([*convert, "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "en-es.npz"), "-q"]) == 0
    collection = (
        'figures = false\n[collection]\ndocuments = "docs.tsv"\nqueries = "q.tsv"\nqrels = "qrels.txt"\nsource_lang = "es"\n'
        'target_lang = "en"\nsplit = {dev = 0.5, test = 0.5}\n'
    )
    capsys.readouterr()
    (tmp_path / "dt.toml").write_text(collection + '[table]\nfile = "en-es.npz"\n[systems.DT]\nkind = "dt"\n')
    assert main(["run", str(tmp_path / "dt.toml"), "-o", str(tmp_path / "out-dt"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("clirkit: error: ") and "translates en -> es" in err
    (tmp_path / "bm25.toml").write_text(collection + '[systems.BM25]\nkind = "bm25"\n')
    assert main(["run", str(tmp_path / "bm25.toml"), "-o", str(tmp_path / "out-bm25"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "the documents of " in err and "read as 'es', not 'en'" in err
