"""clirkit.cli.data: the one collection-or-files loader of boost-train, boost-rank, scs-train and scs-score."""

from __future__ import annotations

import argparse

import pytest

from clirkit.cli import main
from clirkit.cli.data import load_data
from clirkit.errors import ClirkitError


def _args(**given) -> argparse.Namespace:
    options = dict(
        collection=None,
        variant=None,
        split="test",
        queries=None,
        qrels=None,
        documents=None,
        dev_split="dev",
        dev_queries=None,
        dev_qrels=None,
        query_fields=None,
        query_id_field=None,
    )
    return argparse.Namespace(**{**options, **given})


@pytest.mark.parametrize(
    "given, asked, says",
    [
        (
            {"collection": "nave-en-es", "queries": "q.tsv"},
            {},
            "give either --collection or --queries/--documents files, not both",
        ),
        (
            {"collection": "nave-en-es", "dev_qrels": "d.qrels"},
            {"qrels": True, "dev": True},
            "give either --collection or --queries/--qrels/--documents files, not both",
        ),
        ({"queries": "q.tsv"}, {"qrels": True}, "give --collection, or --qrels, --documents"),
        (
            {"queries": "q.tsv", "qrels": "q.qrels", "documents": "d.tsv", "dev_queries": "dq.tsv"},
            {"qrels": True, "dev": True},
            "give both --dev-queries and --dev-qrels, or neither",
        ),
    ],
)
def test_a_collection_with_files_or_files_missing_are_said_before_anything_is_read(given, asked, says):
    with pytest.raises(ClirkitError) as info:
        load_data(_args(**given), **asked)
    assert str(info.value) == says


def test_a_collection_gives_its_split_its_dev_split_and_its_languages():
    data = load_data(_args(collection="nave-en-es", split="train"), qrels=True, dev=True)
    assert data.collection is not None and (data.source_lang, data.target_lang) == ("en", "es")
    assert set(data.queries) == set(data.collection.queries("train")) and data.dev_queries is not None
    assert len(data.documents[0]) == len(data.collection.documents()[0])
    assert load_data(_args(collection="nave-en-es", dev_split="none"), dev=True).dev_queries is None


@pytest.mark.parametrize(
    "verb",
    [
        ["boost-rank", "MODEL"],
        ["scs-score", "MODEL", "-o", "OUT"],
        ["scs-train", "-o", "OUT"],
        ["boost-train", "-o", "OUT"],
    ],
)
def test_every_training_and_ranking_verb_takes_the_same_data_options(verb, tmp_path, capsys):
    argv = [str(tmp_path / "x") if a in ("MODEL", "OUT") else a for a in verb]
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    out = capsys.readouterr().out
    assert all(o in out for o in ("--collection", "--variant", "--split", "--queries", "--documents", "--query-fields"))


@pytest.mark.parametrize(
    "option, says",
    [
        (["--split", "dev"], "--split chooses the collection split of the queries"),
        (["--split", "train"], "--split chooses the collection split of the queries"),  # at boost-train's default
        (["--variant", "strict"], "--variant chooses a collection's variant"),
        (["--dev-split", "test"], "--dev-split chooses the collection split of the dev queries"),
    ],
)
def test_an_option_choosing_a_collections_queries_is_refused_with_files(tmp_path, capsys, option, says):
    # issue 40, edge round 13, 13A-8: said no fix before (the outputs were byte-identical)
    from test_boost_cli import write_files

    q, qrels, docs = write_files(tmp_path)
    files = ["--queries", q, "--documents", docs]
    train = [*files, "--qrels", qrels, "--source-lang", "en", "--target-lang", "es", "-q"]
    boost, scs = str(tmp_path / "b.npz"), str(tmp_path / "s.npz")
    assert main(["boost-train", *train, "--rounds", "2", "--bits", "20", "-o", boost]) == 0
    assert main(["scs-train", *train, "--epochs", "1", "--dim", "8", "-o", scs]) == 0
    verbs = [
        ["boost-train", *train, "--rounds", "2", "--bits", "20"],
        ["scs-train", *train, "--epochs", "1", "--dim", "8"],
        ["boost-rank", boost, *files, "-q"],
        ["scs-score", scs, *files, "-q"],
    ]
    for verb in verbs if option[0] != "--dev-split" else verbs[:1]:
        out = tmp_path / "out"
        assert main([*verb, *option, "-o", str(out)]) == 2, verb[0]
        assert capsys.readouterr().err == (
            f"clirkit: error: {says}, and the data are files: give --collection, or drop {option[0]}\n"
        )
        assert not out.exists()
