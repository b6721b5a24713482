"""The gettext collections read the other way (clirkit/datasets/gettext_reverse.py): English messages as queries,
their translations as documents, derived from the bundled gettext-LANG-en."""

from __future__ import annotations

import hashlib

import pytest

from clirkit import datasets
from clirkit.datasets import gettext_reverse

SPLITS = ("train", "dev", "test")


def _digests(folder) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_the_builder_remakes_the_committed_files_byte_for_byte(tmp_path):
    assert gettext_reverse.main(["-o", str(tmp_path), "--languages", "th", "--quiet"]) == 0
    committed = datasets.load("gettext-en-th").folder
    assert _digests(tmp_path / "gettext-en-th" / "standard") == _digests(committed)


@pytest.mark.parametrize("lang", gettext_reverse.LANGUAGES)
def test_every_judgment_is_one_of_the_forward_collection_read_the_other_way(lang):
    reverse, forward = datasets.load(f"gettext-en-{lang}"), datasets.load(f"gettext-{lang}-en")
    assert (reverse.source_lang, reverse.target_lang) == ("en", lang)
    docids, texts = reverse.documents()
    translations = dict(zip(docids, texts))
    english = dict(zip(*forward.documents()))
    seen: set[str] = set()
    for split in SPLITS:
        queries, judged = reverse.queries(split), reverse.qrels(split).to_dict()
        assert set(judged) == set(queries) and not (set(queries) & seen)  # every query judged, splits disjoint
        seen |= set(queries)
        back = forward.qrels(split).to_dict()
        forward_queries = forward.queries(split)
        for qid, docs in judged.items():
            assert queries[qid] == english[qid]
            for d, grade in docs.items():
                assert grade == 1 and back[d].get(qid) == 1
                assert translations[d] == forward_queries[d]  # the document is the forward query's text


def test_the_parallel_corpus_is_the_forward_one_with_english_as_the_source():
    reverse, forward = datasets.load("gettext-en-ko"), datasets.load("gettext-ko-en")
    korean, english = forward.parallel()
    assert reverse.parallel() == (english, korean)
