"""The experiment runner at its edges (edge test 11): a collection folder named in an experiment file is read
beside the file; a collection folder edited after it was built is refused (its counts) or made again (its files'
sizes and times in the records); an input inside the output folder, which a run replaces whole, is refused; a system
that finds no document for a split scores 0, as ``clirkit eval`` scores such a run."""

from __future__ import annotations

from pathlib import Path

from clirkit.cli import main

SYSTEMS = 'measures = ["AP"]\nfigures = false\n[systems.BM25]\nkind = "bm25"\n'


def _collection(folder: Path, docs: int, test_query: str = "uno") -> Path:
    """A collection folder ``folder/col`` of ``docs`` documents (``d1`` ``uno`` ...), a dev and a test query."""
    folder.mkdir(parents=True, exist_ok=True)
    words = ["uno", "dos", "tres", "cuatro", "cinco"]
    (folder / "d.tsv").write_text("".join(f"d{i}\t{words[i]} {words[i]}\n" for i in range(docs)), encoding="utf-8")
    (folder / "dev.tsv").write_text("q1\tdos\n", encoding="utf-8")
    (folder / "test.tsv").write_text(f"q2\t{test_query}\n", encoding="utf-8")
    (folder / "qrels").write_text("q1 0 d1 1\nq2 0 d0 1\n", encoding="utf-8")
    args = ["collection", "--documents", str(folder / "d.tsv"), "--source-lang", "en", "--target-lang", "es"]
    args += ["--queries", f"dev={folder / 'dev.tsv'}", "--queries", f"test={folder / 'test.tsv'}"]
    args += ["--qrels", str(folder / "qrels"), "-o", str(folder / "col"), "-q"]
    assert main(args) == 0
    return folder / "col"


def _experiment(path: Path, head: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + "\n" + SYSTEMS, encoding="utf-8")
    return path


# ------------------------------------------------------------------ 1. collection = "DIR" beside the file


def test_a_collection_folder_of_an_experiment_file_is_read_beside_the_file(tmp_path, monkeypatch, capsys):
    _collection(tmp_path / "sub", docs=3)
    _collection(tmp_path, docs=5)  # another folder of the same name in the current folder
    exp = _experiment(tmp_path / "sub" / "exp.toml", 'collection = "col"')
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(exp), "-o", "out", "-q"]) == 0
    assert "test split: 1 query, 3 documents" in (tmp_path / "out" / "results.txt").read_text()
    monkeypatch.chdir(tmp_path / "sub" / "col")  # from anywhere, the same folder
    assert main(["run", str(exp), "-o", str(tmp_path / "out2"), "-q"]) == 0
    assert "test split: 1 query, 3 documents" in (tmp_path / "out2" / "results.txt").read_text()


def test_a_collection_folder_given_on_the_command_line_is_read_from_the_current_folder(tmp_path, monkeypatch):
    _collection(tmp_path / "sub", docs=3)
    _collection(tmp_path, docs=5)
    exp = _experiment(tmp_path / "sub" / "exp.toml", 'collection = "nave-en-es"')
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(exp), "--collection", "col", "-o", "out", "-q"]) == 0
    assert "test split: 1 query, 5 documents" in (tmp_path / "out" / "results.txt").read_text()


# ------------------------------------------------------------------ 2. a collection folder edited since


def test_a_collection_folder_holding_fewer_documents_than_its_manifest_says_is_refused(tmp_path, capsys):
    col = _collection(tmp_path, docs=5)
    exp = _experiment(tmp_path / "exp.toml", 'collection = "col"')
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 0
    lines = (col / "documents.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    (col / "documents.tsv").write_text("".join(lines[:4]), encoding="utf-8")
    capsys.readouterr()
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("clirkit: error: ") and err.count("\n") == 1
    assert f"{col / 'documents.tsv'}: 4 documents, the manifest {col / 'manifest.json'} says 5" in err


def test_a_rerun_after_a_collection_file_was_edited_makes_the_runs_again(tmp_path):
    col = _collection(tmp_path, docs=5)
    exp = _experiment(tmp_path / "exp.toml", 'collection = "col"')
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 0
    before = (tmp_path / "out" / "results.txt").read_text()
    (col / "queries.test.tsv").write_text("q2\tcinco\n", encoding="utf-8")  # the same count, another text
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 0
    assert main(["run", str(exp), "-o", str(tmp_path / "fresh"), "-q"]) == 0
    after = (tmp_path / "out" / "results.txt").read_text()
    assert after != before and after == (tmp_path / "fresh" / "results.txt").read_text()


# ------------------------------------------------------------------ 10. inputs inside the output folder


def test_an_input_inside_the_output_folder_is_refused_before_any_work(tmp_path, capsys):
    _collection(tmp_path, docs=5)
    exp = _experiment(tmp_path / "exp.toml", 'collection = "col"')
    out = tmp_path / "out"
    assert main(["run", str(exp), "-o", str(out), "-q"]) == 0
    run_file = out / "runs" / "bm25.test.run.gz"
    assert run_file.is_file()
    text = 'collection = "col"\nmeasures = ["AP"]\nfigures = false\nkeep_runs = ["BM25.*"]\n'
    text += '[systems.BM25]\nkind = "bm25"\n[systems.EXT]\nkind = "run"\nfile = "out/runs/bm25.test.run.gz"\n'
    (tmp_path / "ext.toml").write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["run", str(tmp_path / "ext.toml"), "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"is inside the output folder {out}, which is replaced as a whole" in err
    assert "out/runs/bm25." in err and run_file.is_file() and not (tmp_path / ".out.partial").exists()

    plain = '[collection]\ndocuments = "d.tsv"\nqueries = {dev = "dev.tsv", test = "test.tsv"}\nqrels = "qrels"\n'
    plain += 'source_lang = "en"\ntarget_lang = "es"\n'
    (tmp_path / "plain.toml").write_text(SYSTEMS + plain, encoding="utf-8")
    assert main(["run", str(tmp_path / "plain.toml"), "-o", str(tmp_path / "out3"), "-q"]) == 0
    inside = _experiment(tmp_path / "inside.toml", 'collection = "out3/collection"')
    capsys.readouterr()
    assert main(["run", str(inside), "-o", str(tmp_path / "out3"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {inside}: collection out3/collection is inside the output folder {tmp_path / 'out3'}, "
        "which is replaced as a whole: copy it out, or write to another folder\n"
    )
    assert (tmp_path / "out3" / "collection" / "manifest.json").is_file()


# ------------------------------------------------------------------ 11. a system finding nothing for a split


def test_a_system_that_finds_no_document_for_a_split_scores_0_with_a_note(tmp_path, capsys):
    _collection(tmp_path, docs=5, test_query="nada")  # the test query shares no word with the documents
    exp = _experiment(tmp_path / "exp.toml", 'collection = "col"')
    capsys.readouterr()
    assert main(["run", str(exp), "-o", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    note = "BM25: no document for the 1 test query: it scores 0 on each judged query"
    assert note in captured.err and note in captured.out
    assert "BM25  1        0.0000" in captured.out
    assert note in (tmp_path / "out" / "report.md").read_text()
