"""A dictionary or a phrase table read from text over an index an older clirkit made (normalization version 4) is
analyzed with the index's version: its words have no version of their own. It was refused ("rebuild one of them")
for every such index, whatever the words; a table trained and saved by clirkit, which records its analysis, is
still refused (tests/test_edges_round13_tables.py)."""

from __future__ import annotations

import pytest

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.docpsqsystem import DocPSQ
from clirkit.estimator import Resources
from clirkit.psqsystem import PSQ
from clirkit.retrieval.index import Index
from clirkit.systems import DT
from clirkit.translation import load_table

# Greek words in English documents: version 4 keeps their accents, version 5 folds them (Ωμέγα: ωμέγα, ωμεγα)
DOCS = [("d1", "the Ωμέγα watch"), ("d2", "a red house"), ("d3", "the old Ωμέγα house")]
DICTIONARY = "reloj Ωμέγα\ncasa house\n"
QUERIES = {"q1": "reloj", "q2": "casa"}
EXPECTED = {"q1": {"d1", "d3"}, "q2": {"d2", "d3"}}


@pytest.fixture()
def folder(tmp_path):
    Index.build(DOCS, Analyzer("en", normalization_version=4)).save(tmp_path / "old.npz")
    (tmp_path / "es-en.txt").write_text(DICTIONARY, encoding="utf-8")  # its name says its languages
    (tmp_path / "words.txt").write_text(DICTIONARY, encoding="utf-8")  # its does not
    (tmp_path / "es-en.phrase-table").write_text(
        "reloj ||| Ωμέγα ||| 1 1 1 1\ncasa ||| house ||| 1 1 1 1\n", encoding="utf-8"
    )
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()), encoding="utf-8")
    return tmp_path


def _retrieved(run_file) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in run_file.read_text().splitlines():
        qid, _, docid, *_ = line.split()
        out.setdefault(qid, set()).add(docid)
    return out


@pytest.mark.parametrize("table", ["es-en.txt", "words.txt", "es-en.phrase-table"])
@pytest.mark.parametrize("verb", ["dt", "psq"])
def test_the_commands_read_a_text_table_with_an_older_indexs_version(folder, verb, table, capsys):
    run = folder / f"{verb}.run"
    status = main(
        [verb, "--index", str(folder / "old.npz"), "--table", str(folder / table), "--queries", str(folder / "q.tsv")]
        + ["--source-lang", "es", "-o", str(run), "-q"]
    )
    assert status == 0, capsys.readouterr().err
    assert _retrieved(run) == EXPECTED


@pytest.mark.parametrize("table", ["es-en.txt", "words.txt", "es-en.phrase-table"])
@pytest.mark.parametrize("system", [DT, PSQ])
def test_the_systems_read_a_text_table_with_an_older_indexs_version(folder, system, table):
    fitted = system(source_lang="es").fit(Resources(index=Index.load(folder / "old.npz"), table=folder / table))
    assert {q: set(docs) for q, docs in fitted.search(QUERIES).to_dict().items()} == EXPECTED
    assert fitted.table_.params["target_analyzer"]["normalization_version"] == 4


def test_document_side_psq_reads_a_text_table_from_an_older_indexs_language(folder):
    (folder / "en-es.txt").write_text("Ωμέγα reloj\nhouse casa\n", encoding="utf-8")
    fitted = DocPSQ(source_lang="es").fit(
        Resources(index=Index.load(folder / "old.npz"), reverse_table=folder / "en-es.txt")
    )
    assert {q: set(docs) for q, docs in fitted.search(QUERIES).to_dict().items()} == EXPECTED


@pytest.mark.parametrize("version, term", [(4, "ωμέγα"), (5, "ωμεγα"), (None, "ωμεγα")])
def test_load_table_reads_both_sides_with_the_version_given(folder, version, term):
    table = load_table(folder / "es-en.txt", normalization_version=version)
    assert term in table.target_vocab.tolist()
    for side in ("source", "target"):
        assert table.params[f"{side}_analyzer"]["normalization_version"] == (version or 5)
