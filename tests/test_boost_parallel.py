"""Extra training tuples: known-item queries from parallel verses, and (query text, document id, grade) files."""

from __future__ import annotations

import pytest

from clirkit.boost.parallel import PREFIX, known_item_queries, read_triples
from clirkit.errors import ClirkitError

SOURCE = [
    "In the beginning, God created the heavens and the earth.",
    "God said, Let there be light",
    "The earth was formless and empty.",
]
IDS = ["Gen.1.1", "Gen.1.3", "Gen.1.2"]


def test_known_item_queries_keep_the_pairs_whose_id_is_a_document():
    queries, qrels = known_item_queries(SOURCE, IDS, ["Gen.1.3", "Gen.1.1", "John.1.1"], grade=2)
    assert queries == {PREFIX + "Gen.1.1": SOURCE[0], PREFIX + "Gen.1.3": SOURCE[1]}
    assert list(zip(qrels.qids, qrels.docids, qrels.rels)) == [
        (PREFIX + "Gen.1.1", "Gen.1.1", 2),
        (PREFIX + "Gen.1.3", "Gen.1.3", 2),
    ]


def test_known_item_queries_skip_pairs_whose_target_is_not_the_document():
    docs = ["Gen.1.1", "Gen.1.3"]
    texts = ["EN el principio crió Dios los cielos y la tierra.", "Y dijo Dios: Sea la luz: y fué la luz."]
    targets = [texts[0], "otro texto", "Y la tierra estaba desordenada"]
    queries, qrels = known_item_queries(SOURCE, IDS, docs, target_texts=targets, doc_texts=texts)
    assert list(queries) == [PREFIX + "Gen.1.1"] and qrels.docids.tolist() == ["Gen.1.1"]


def test_known_item_queries_need_an_aligned_document():
    with pytest.raises(ClirkitError, match="no parallel pair is aligned"):
        known_item_queries(SOURCE, IDS, ["Matt.1.1"])


def test_triples_group_lines_of_one_query_text(tmp_path):
    path = tmp_path / "triples.tsv"
    path.write_text(
        "light of the world\tJohn.8.12\t2\nthe good shepherd\tJohn.10.11\t1\nlight of the world\tMatt.5.14\t1\n",
        encoding="utf-8",
    )
    queries, qrels = read_triples(str(path))
    assert queries == {"triples:1": "light of the world", "triples:2": "the good shepherd"}
    assert list(zip(qrels.qids, qrels.docids, qrels.rels)) == [
        ("triples:1", "John.8.12", 2),
        ("triples:2", "John.10.11", 1),
        ("triples:1", "Matt.5.14", 1),
    ]


@pytest.mark.parametrize(
    "line, problem",
    [
        ("light\tJohn.8.12\n", "expected 3 tab-separated fields"),
        ("light\tJohn.8.12\ttwo\n", "is not an integer"),
        ("\tJohn.8.12\t1\n", "empty query text"),
        ("light\tJohn.8.12\t99999999999999999999\n", "out of range"),
    ],
)
def test_bad_triple_lines_name_file_and_line(tmp_path, line, problem):
    path = tmp_path / "t.tsv"
    path.write_text("good query\tGen.1.1\t1\n" + line, encoding="utf-8")
    with pytest.raises(ClirkitError, match=problem) as err:
        read_triples(str(path))
    assert f"{path}:2:" in str(err.value)


def test_a_repeated_judgment_is_refused(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("q\tGen.1.1\t1\nq\tGen.1.1\t2\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=":2: query and document"):
        read_triples(str(path))
