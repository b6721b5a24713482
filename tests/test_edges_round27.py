"""Edge round 27 (an independent test of analysis version 5): a second table of the queries whose words were analyzed
otherwise than the index's terms or the first table's query words is refused, naming it, as the documents' side
refuses it (it was taken, and interpolated with nothing it could meet)."""

from __future__ import annotations

import pytest

from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.retrieval.index import Index
from clirkit.systems import QueryPSQ, Resources
from clirkit.tablefit import SecondTableMismatch
from clirkit.translation import save_table, train_table

PAIRS = [("the house", "la casa"), ("a dog", "un perro"), ("the dog house", "la casa del perro")]


def _table(source: Analyzer, target: Analyzer):
    return train_table(
        [source.tokenize(e) for e, _ in PAIRS], [target.tokenize(s) for _, s in PAIRS], source, target, iterations=3
    )


@pytest.fixture(scope="module")
def index():
    return Index.build([("d1", "la casa"), ("d2", "un perro"), ("d3", "el gato")], Analyzer("es"))


@pytest.mark.parametrize(
    "source, target, says",
    [
        (Analyzer("en"), Analyzer("es", normalization_version=4), "target words were analyzed with normaliz"),
        (Analyzer("en"), Analyzer("es", stemmer=None), "target words were analyzed as es, no stemming"),
        (Analyzer("en", stemmer=None), Analyzer("es"), "its query-language words were analyzed as en, no stemming"),
    ],
)
def test_a_second_table_analyzed_otherwise_is_refused_naming_it(index, source, target, says):
    first = _table(Analyzer("en"), Analyzer("es"))
    with pytest.raises(SecondTableMismatch, match=says):
        QueryPSQ().fit(Resources(index=index, table=first, table2=_table(source, target)))


def test_psq_names_the_second_table_file_and_writes_nothing(index, tmp_path, capsys):
    index.save(tmp_path / "ix.npz")
    save_table(_table(Analyzer("en"), Analyzer("es")), tmp_path / "t.npz")
    save_table(_table(Analyzer("en"), Analyzer("es", normalization_version=4)), tmp_path / "t4.npz")
    (tmp_path / "q.tsv").write_text("q1\tthe house\n", encoding="utf-8")
    argv = ["psq", "--index", str(tmp_path / "ix.npz"), "--table", str(tmp_path / "t.npz"), "--table2"]
    argv += [str(tmp_path / "t4.npz"), "--queries", str(tmp_path / "q.tsv"), "-o", str(tmp_path / "r.run"), "-q"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {tmp_path / 't4.npz'}: the table's target words") and err.count("\n") == 1
    assert not (tmp_path / "r.run").exists()
