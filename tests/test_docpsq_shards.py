"""Translated indexes in shards (clirkit.docpsq.ShardedProjectedIndex): a sharded document index translated shard by
shard is the translated index split, file for file; searching its shards (BM25 and the language model, one or two
workers, from Python and the command) writes the run of the translated index in one file byte for byte; a missing
shard or a shard of another kind is a one-line error."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from clirkit import datasets
from clirkit.analysis import Analyzer
from clirkit.cli import main
from clirkit.docpsq import ShardedProjectedIndex, project, project_shards
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.formats import write_run
from clirkit.npzio import HEADER_KEY, encode_header
from clirkit.psq import prepare_table
from clirkit.retrieval.index import Index
from clirkit.retrieval.shardfiles import contents_code
from clirkit.retrieval.shards import ShardedIndex, load_index
from clirkit.systems import PSQ
from clirkit.translation import TranslationTable, save_table, train_table

# Spanish -> English p(e|f): the table of tests/test_docpsq.py
REVERSE = TranslationTable.from_triples(
    ["luz", "luz", "luz", "dios", "dios", "la", "tinieblas"],
    ["light", "lamp", "fire", "god", "gods", "the", "darkness"],
    [0.6, 0.3, 0.1, 0.9, 0.1, 1.0, 1.0],
    params={"source_lang": "es", "target_lang": "en"},
)


@pytest.fixture(scope="module")
def nave(mini):
    """The test slice of nave-en-es: its Spanish verses indexed, the table p(en|es) trained on its verse pairs (the
    documents' direction) and its English queries (every split)."""
    c = datasets.load(str(mini))
    en, es, texts = Analyzer("en"), Analyzer("es"), dict(zip(*c.documents()))
    sources, targets = c.parallel()
    reverse = train_table(es.tokenize_many(targets), en.tokenize_many(sources), es, en, iterations=3)
    topics = {q: t for split in ("train", "dev", "test") for q, t in c.queries(split).items()}
    return Index.build(texts.items(), es), reverse, topics, texts


def run_bytes(run, path) -> bytes:
    write_run(run, path)
    return path.read_bytes()


def files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_sharded_index_translated_shard_by_shard_is_the_translated_index_split_file_for_file(nave, tmp_path):
    index, reverse, _, _ = nave
    pruned = prepare_table(reverse, min_prob=1e-4, cumulative=0.99, max_options=64)
    whole = project(index, pruned)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ShardedProjectedIndex.split(whole, 3).save(tmp_path / "a" / "t.npz")
    made = project_shards(ShardedIndex.split(index, 3), pruned)
    made.save(tmp_path / "b" / "t.npz")
    assert len(files(tmp_path / "a")) == 4 and files(tmp_path / "a") == files(tmp_path / "b")
    assert np.array_equal(made.terms, whole.terms) and np.array_equal(made.df, whole.df)
    assert made.avgdl == whole.avgdl and made.n_docs == whole.n_docs
    assert np.array_equal(made.cf, whole.tf @ np.ones(whole.n_docs))  # summed in document order, to the bit
    loaded = load_index(tmp_path / "b" / "t.npz")
    assert type(loaded) is ShardedProjectedIndex and loaded.translation == whole.translation
    assert np.array_equal(loaded.cf, made.cf) and loaded.shard(1).source_lengths.dtype == np.float64


def test_a_manifest_whose_expected_counts_disagree_with_its_totals_is_refused(nave, tmp_path, tamper):
    index, reverse, _, _ = nave
    made = project_shards(ShardedIndex.split(index, 3), prepare_table(reverse, min_prob=1e-4))
    made.save(tmp_path / "t.npz")
    cf = made.cf.copy()
    cf[0] += 0.25
    remedy = "translate the documents again with `clirkit psq --save-index`$"
    for edit, problem in (
        ({"cf": cf}, r"cf sums to \S+ expected tokens but header stats.avgdl \S+ times n_docs \d+ is \S+"),
        (
            {"header": {"stats.avgdl": 1.0}},
            r"cf sums to \S+ expected tokens but header stats.avgdl 1.0 times n_docs \d+ is \S+",
        ),
        ({"header": {"stats.n_tokens": 7}}, r"cf sums to \S+ but header stats.n_tokens is 7"),
    ):
        bad = tamper(tmp_path / "t.npz", tmp_path / "bad.npz", **edit)
        with pytest.raises(ClirkitError, match=rf"bad.npz: corrupt sharded-projected-index: {problem}; {remedy}"):
            load_index(bad)


def test_a_shard_whose_documents_own_lengths_were_edited_is_refused(nave, tmp_path, tamper):
    index, reverse, _, _ = nave
    made = project_shards(ShardedIndex.split(index, 3), prepare_table(reverse, min_prob=1e-4))
    made.save(tmp_path / "t.npz")
    assert [r["source_tokens"] for r in made.records] == [int(s.source_lengths.sum()) for s in made.shards]
    edited = tamper(tmp_path / "t.npz", tmp_path / "bad.npz", **{"header": {"translation.source_stats.n_tokens": 7}})
    with pytest.raises(ClirkitError, match=r"the shards record \d+ tokens .*translation.source_stats.n_tokens 7;"):
        load_index(edited)
    shard = tmp_path / made.records[1]["file"]  # one document's own length one longer: its shard's sum is off
    lengths = made.shards[1].source_lengths.copy()
    lengths[0] += 1
    tamper(shard, shard, source_lengths=lengths)
    with pytest.raises(ClirkitError, match=rf"shard 1 \({shard.name}\) holds other contents than the manifest"):
        load_index(tmp_path / "t.npz").shard(1)
    tamper(tmp_path / "t.npz", tmp_path / "t.npz", header={"shards.1.contents": contents_code(shard)})  # edited too
    with pytest.raises(ClirkitError, match=rf"shard 1 \({shard.name}\) has source_tokens \d+, the manifest records"):
        load_index(tmp_path / "t.npz").shard(1)
    lengths[0] += 10**6  # more than the whole collection's: refused by the shard's own file
    tamper(shard, shard, source_lengths=lengths)
    tamper(tmp_path / "t.npz", tmp_path / "t.npz", header={"shards.1.contents": contents_code(shard)})
    with pytest.raises(
        ClirkitError, match=rf"shard 1 \({shard.name}\): corrupt projected-index: source_lengths sums to \d+ but"
    ):
        load_index(tmp_path / "t.npz").shard(1)


@pytest.mark.parametrize("scoring", ["bm25", "lm"])
def test_psq_over_a_sharded_translated_index_writes_the_unsharded_run_byte_for_byte(nave, tmp_path, scoring):
    index, reverse, topics, _ = nave
    psq = dict(translate="documents", scoring=scoring)
    one = PSQ(**psq).fit(Resources(index=index, reverse_table=reverse))
    expected = run_bytes(one.search(topics, depth=100), tmp_path / "a.run")
    assert expected
    for split in ({"shards": 3}, {"starts": [0, 1, 250, 251]}):
        system = PSQ(**psq).fit(
            Resources(index=ShardedIndex.split(index, **split), reverse_table=reverse)
        )  # the document index's shards
        assert type(system.index_) is ShardedProjectedIndex
        assert run_bytes(system.search(topics, depth=100), tmp_path / "b.run") == expected
    ShardedProjectedIndex.split(one.index_, 3).save(tmp_path / "t.npz")  # the translated index's shards
    for jobs in (1, 2):
        sharded = ShardedProjectedIndex.load(tmp_path / "t.npz", jobs=jobs)
        for _ in range(2):  # the second search finds the shards open
            system = PSQ(scoring=scoring).fit(Resources(index=sharded))  # translate = auto: an index translated before
            assert system.translate_ == "documents"
            assert run_bytes(system.search(topics, depth=100), tmp_path / "c.run") == expected


def test_lm_over_the_shards_of_a_document_index_with_translated_queries_is_the_unsharded_run(tmp_path):
    english = Index.from_tokens(
        ["d1", "d2", "d3"], [["light", "god"], ["the", "light", "light"], ["god", "darkness"]], Analyzer("en")
    )
    spanish = {"a": "luz dios", "b": "la luz", "c": "tinieblas"}  # REVERSE translates them into English
    expected = run_bytes(
        PSQ(translate="queries", scoring="lm").fit(Resources(index=english, table=REVERSE)).search(spanish),
        tmp_path / "a",
    )
    assert expected.count(b"\n") == 6  # a: d1 d3 d2, b: d2 d1, c: d3
    for shards in (2, 3):
        system = PSQ(translate="queries", scoring="lm").fit(
            Resources(index=ShardedIndex.split(english, shards), table=REVERSE)
        )
        assert run_bytes(system.search(spanish), tmp_path / "b") == expected


def test_the_shards_statistics_and_lm_scores_by_hand(index):
    # two shards of the Genesis verses (docids sorted: Gen.1.1 .. Gen.1.8, John.1.1, John.1.5), luz kept whole
    pruned = prepare_table(REVERSE, min_prob=0.2, cumulative=0.95, target_stopwords=["the"])
    sharded = project_shards(ShardedIndex.split(index, 2), pruned, unknown="drop")
    whole = project(index, pruned, unknown="drop")
    light = sharded.vocabulary["light"]
    luz = index.tf[index.vocabulary["luz"]].toarray().ravel()  # luz per verse
    assert sharded.cf[light] == pytest.approx(luz.sum() * 0.6 / 0.9) and sharded.df[light] == (luz > 0).sum()
    assert sharded.avgdl == pytest.approx(whole.doc_lengths.mean())
    system = PSQ(
        translate="documents",
        scoring="lm",
        alpha=0.5,
        min_prob=0.2,
        cumulative=0.95,
        max_options=None,
        target_stopwords=["the"],
        unknown="drop",
    ).fit(Resources(index=sharded))  # the settings that made it
    run = system.search({"q": "light"})
    p_bg = sharded.cf[light] / sharded.cf.sum()
    j = int(np.searchsorted(index.docids, "Gen.1.3"))  # luz 2 of its 10 tokens
    hand = math.log(1 + (0.5 * 2 * 0.6 / 0.9 / index.doc_lengths[j]) / (0.5 * p_bg))
    assert dict(zip(run.docids.tolist(), run.scores.tolist()))["Gen.1.3"] == pytest.approx(hand, rel=1e-12)


def test_command_translates_and_searches_shards_as_the_index_in_one_file(nave, tmp_path, capsys):
    index, reverse, topics, texts = nave
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in sorted(texts.items())), encoding="utf-8")
    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()), encoding="utf-8")
    save_table(reverse, tmp_path / "rev.npz")
    for out, shards in (("ix.npz", "1"), ("sx.npz", "2")):
        assert (
            main(
                [
                    "index",
                    str(tmp_path / "docs.tsv"),
                    "-o",
                    str(tmp_path / out),
                    "--lang",
                    "es",
                    "--shards",
                    shards,
                    "-q",
                ]
            )
            == 0
        )
    psq = ["psq", "--queries", str(tmp_path / "q.tsv"), "-q"]
    for scoring in ("bm25", "lm"):
        assert (
            main(
                psq
                + [
                    "--table",
                    str(tmp_path / "rev.npz"),
                    "--index",
                    str(tmp_path / "ix.npz"),
                    "--scoring",
                    scoring,
                    "--save-index",
                    str(tmp_path / "t1.npz"),
                    "-o",
                    str(tmp_path / "a.run"),
                ]
            )
            == 0
        )
        expected = (tmp_path / "a.run").read_bytes()
        assert expected
        # a sharded document index: translated shard by shard; an index in one file: written in 3 shards
        for source, shards, saved in (("sx.npz", [], "t2.npz"), ("ix.npz", ["--shards", "3"], "t3.npz")):
            assert (
                main(
                    psq
                    + [
                        "--table",
                        str(tmp_path / "rev.npz"),
                        "--index",
                        str(tmp_path / source),
                        "--scoring",
                        scoring,
                        "--save-index",
                        str(tmp_path / saved),
                        *shards,
                        "-o",
                        str(tmp_path / "b.run"),
                    ]
                )
                == 0
            )
            assert (tmp_path / "b.run").read_bytes() == expected
            for jobs in ("1", "2"):
                assert (
                    main(
                        psq
                        + [
                            "--index",
                            str(tmp_path / saved),
                            "--scoring",
                            scoring,
                            "--jobs",
                            jobs,
                            "-o",
                            str(tmp_path / "c.run"),
                        ]
                    )
                    == 0
                )
                assert (tmp_path / "c.run").read_bytes() == expected, (saved, jobs)
    assert load_index(tmp_path / "t2.npz").n_shards == 2 and load_index(tmp_path / "t3.npz").n_shards == 3

    capsys.readouterr()
    assert (
        main(
            psq
            + [
                "--table",
                str(tmp_path / "rev.npz"),
                "--index",
                str(tmp_path / "sx.npz"),
                "--save-index",
                str(tmp_path / "x.npz"),
                "--shards",
                "3",
                "-o",
                str(tmp_path / "x.run"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "in 2 shards, so is its translation" in err and not (tmp_path / "x.run").exists()
    assert main(psq + ["--index", str(tmp_path / "t2.npz"), "--shards", "2", "-o", str(tmp_path / "x.run")]) == 2
    assert "give --save-index" in capsys.readouterr().err


def test_a_missing_shard_or_a_shard_of_another_kind_is_a_one_line_error(nave, tmp_path, capsys):
    index, reverse, topics, _ = nave
    PSQ(translate="documents").fit(Resources(index=index, reverse_table=reverse)).index_
    translated = (
        PSQ(translate="documents").fit(Resources(index=ShardedIndex.split(index, 2), reverse_table=reverse)).index_
    )
    translated.save(tmp_path / "t.npz")
    ShardedIndex.split(index, 2).save(tmp_path / "plain.npz")
    (tmp_path / "q.tsv").write_text("q1\tlight\n", encoding="utf-8")
    search = ["psq", "--queries", str(tmp_path / "q.tsv"), "-o", str(tmp_path / "x.run"), "-q"]

    shard = tmp_path / translated.records[1]["file"]
    good = shard.read_bytes()
    shard.unlink()
    assert main(search + ["--index", str(tmp_path / "t.npz")]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and f"shard 1 ({shard.name}) is missing from {os.path.realpath(tmp_path)}: translate the documents again" in err
    )

    # a plain index's shard in its place, its size recorded: it is not a translated shard
    other = tmp_path / ShardedIndex.load(tmp_path / "plain.npz").records[1]["file"]
    shard.write_bytes(other.read_bytes())
    with np.load(tmp_path / "t.npz", allow_pickle=False) as npz:
        import json

        header = json.loads(npz[HEADER_KEY].tobytes().decode("utf-8"))
        arrays = {k: npz[k] for k in npz.files if k != HEADER_KEY}
    header["shards"][1]["bytes"] = shard.stat().st_size
    np.savez(tmp_path / "t.npz", **{HEADER_KEY: encode_header(header)}, **arrays)
    assert main(search + ["--index", str(tmp_path / "t.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{shard.name}) holds other contents than the manifest records" in err
    header["shards"][1]["contents"] = contents_code(shard)  # its contents recorded too: not a translated shard
    np.savez(tmp_path / "t.npz", **{HEADER_KEY: encode_header(header)}, **arrays)
    assert main(search + ["--index", str(tmp_path / "t.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and shard.name in err and "projected-index" in err
    with pytest.raises(ClirkitError, match="not a clirkit sharded-projected-index file"):
        ShardedProjectedIndex.load(tmp_path / "plain.npz")
    shard.write_bytes(good)
    # a sharded index of the documents, no table: said as for an index in one file
    assert main(search + ["--index", str(tmp_path / "plain.npz")]) == 2
    assert "--table is required" in capsys.readouterr().err
