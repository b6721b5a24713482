import pytest

from clirkit.cli import main
from clirkit.formats import read_run


@pytest.fixture
def files(tmp_path, verses_es):
    docs = tmp_path / "docs.tsv"
    docs.write_text("".join(f"{d}\t{t}\n" for d, t in verses_es.items()), encoding="utf-8")
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tla luz de Dios\nq2\tlas aguas y la expansión\nq3\tpalabra desconocida\n", encoding="utf-8")
    return tmp_path, docs, queries


def test_index_then_search_writes_a_trec_run(files):
    tmp, docs, queries = files
    assert main(["index", str(docs), "-o", str(tmp / "ix.npz"), "--lang", "es", "-q"]) == 0
    assert (
        main(
            [
                "search",
                "--index",
                str(tmp / "ix.npz"),
                "--queries",
                str(queries),
                "-o",
                str(tmp / "run.txt"),
                "--depth",
                "3",
                "-q",
            ]
        )
        == 0
    )
    run = read_run(tmp / "run.txt")
    assert run.query_ids == ["q1", "q2"]
    assert run.docids[run.qids == "q2"][0] == "Gen.1.7"
    first = (tmp / "run.txt").read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "BM25"


def test_two_invocations_give_byte_identical_runs(files):
    tmp, docs, queries = files
    outputs = []
    for name in ("a", "b"):
        main(["index", str(docs), "-o", str(tmp / f"{name}.npz"), "--lang", "es", "-q"])
        main(
            [
                "search",
                "--index",
                str(tmp / f"{name}.npz"),
                "--queries",
                str(queries),
                "-o",
                str(tmp / f"{name}.run"),
                "-q",
            ]
        )
        outputs.append((tmp / f"{name}.run").read_bytes())
    assert outputs[0] == outputs[1] and outputs[0]
    assert (tmp / "a.npz").read_bytes() == (tmp / "b.npz").read_bytes()


def test_unmatched_queries_are_reported_on_stderr(files, capsys):
    tmp, docs, queries = files
    main(["index", str(docs), "-o", str(tmp / "ix.npz"), "--lang", "es", "-q"])
    main(["search", "--index", str(tmp / "ix.npz"), "--queries", str(queries), "-o", str(tmp / "r")])
    assert "1 of 3 queries matched no document: q3" in capsys.readouterr().err


def test_bad_documents_file_exits_2_naming_file_and_line(files, capsys):
    tmp, _, _ = files
    bad = tmp / "bad.tsv"
    bad.write_text("Gen.1.1\tluz\nGen.1.2 sin tabulador\n", encoding="utf-8")
    assert main(["index", str(bad), "-o", str(tmp / "ix.npz"), "--lang", "es", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clirkit: error: ") and f"{bad}:2:" in err and len(err.strip().splitlines()) == 1
    assert not (tmp / "ix.npz").exists()


def test_missing_index_exits_2(files, capsys):
    tmp, _, queries = files
    assert main(["search", "--index", str(tmp / "none.npz"), "--queries", str(queries), "-o", "-"]) == 2
    assert "none.npz: no such file" in capsys.readouterr().err


def test_stopwords_top_drops_the_most_frequent_terms(files):
    tmp, docs, _ = files
    main(["index", str(docs), "-o", str(tmp / "ix.npz"), "--lang", "es", "--stopwords-top", "2", "-q"])
    from clirkit.retrieval.index import Index

    assert {"y", "la"}.isdisjoint(Index.load(tmp / "ix.npz").vocabulary)


def test_index_reads_named_fields_and_a_declared_header(tmp_path, verses_es):
    from clirkit.retrieval.index import Index

    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(f'{{"pid": "{d}", "body": "{t}"}}\n' for d, t in verses_es.items()), encoding="utf-8")
    assert (
        main(
            [
                "index",
                str(jsonl),
                "--lang",
                "es",
                "--id-field",
                "pid",
                "--text-fields",
                "body",
                "-o",
                str(tmp_path / "j.npz"),
                "-q",
            ]
        )
        == 0
    )
    tsv = tmp_path / "docs.tsv"
    tsv.write_text("pid\tbody\n" + "".join(f"{d}\t{t}\n" for d, t in verses_es.items()), encoding="utf-8")
    assert main(["index", str(tsv), "--lang", "es", "--header", "-o", str(tmp_path / "t.npz"), "-q"]) == 0
    a, b = Index.load(tmp_path / "j.npz"), Index.load(tmp_path / "t.npz")
    assert a.docids.tolist() == b.docids.tolist() == sorted(verses_es) and (a.tf != b.tf).nnz == 0


def test_search_reads_named_query_fields(indexed_dir, tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"num": "q1", "desc": "la luz"}\n{"num": "q2", "desc": "las aguas"}\n', encoding="utf-8")
    plain = tmp_path / "q.tsv"
    plain.write_text("q1\tla luz\nq2\tlas aguas\n", encoding="utf-8")
    assert (
        main(
            [
                "search",
                "--index",
                str(indexed_dir / "ix.npz"),
                "--queries",
                str(queries),
                "--query-id-field",
                "num",
                "--query-fields",
                "desc",
                "-o",
                str(tmp_path / "a.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "search",
                "--index",
                str(indexed_dir / "ix.npz"),
                "--queries",
                str(plain),
                "-o",
                str(tmp_path / "b.run"),
                "-q",
            ]
        )
        == 0
    )
    assert (tmp_path / "a.run").read_bytes() == (tmp_path / "b.run").read_bytes()
