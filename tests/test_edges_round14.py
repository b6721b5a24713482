"""Issue 40's edge round 14: a tuned fusion searched at any depth with the weights tuned there, a depth checked
first, ``ttable show`` reading a hand-written table as ``dt`` does, one-line errors for a query file's keys, a
translated index with a query-side option and a sharded index's jobs, a cut value quoted as cut, ``eval
--baseline`` with one run, and tied translations listed as DT picks them."""

from __future__ import annotations

import re

import pytest

from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.formats import write_run
from clirkit.run import Qrels, Run
from clirkit.runsystem import RunFile
from clirkit.systems import Fusion

# two systems' runs of two dev queries, whose best weights differ at depth 2 (0.7, 0.3) and 1,000 (0.6, 0.4)
_ROWS = {
    "A": [("q1", "d3", 5.0), ("q1", "d1", 3.0), ("q1", "d4", 2.0), ("q2", "d4", 4.0), ("q2", "d1", 3.0)]
    + [("q2", "d3", 1.0)],
    "B": [("q1", "d1", 4.0), ("q1", "d2", 3.0), ("q1", "d3", 2.0), ("q2", "d2", 4.0), ("q2", "d3", 3.0)]
    + [("q2", "d4", 2.0)],
}
_TOPICS = {"q1": "", "q2": ""}
_DEV = Resources(topics={"dev": _TOPICS}, qrels={"dev": Qrels(["q1", "q2"], ["d3", "d3"], [1, 1])})


def _systems():
    return [RunFile(run=Run.ranked(*zip(*rows), tag=tag)).fit() for tag, rows in _ROWS.items()]


def _bytes(run: Run, path) -> bytes:
    write_run(run, path)
    return path.read_bytes()


def _tuned_at(depth: int) -> Fusion:
    """The fusion tuned by fit_runs on the dev runs every search makes (1,000 deep), cut to ``depth``."""
    fusion = Fusion(_systems())
    return fusion.fit_runs([_DEV.run(s, "dev") for s in fusion.systems], _DEV.qrels("dev"), depth=depth)


def test_a_fusion_fit_at_1000_searches_at_depth_2_as_one_tuned_at_2(tmp_path):
    fitted = Fusion(_systems()).fit(_DEV)
    assert fitted.weights_ == [0.6, 0.4] and _tuned_at(2).weights_ == [0.7, 0.3]
    expected = _bytes(_tuned_at(2).search(_TOPICS, depth=2), tmp_path / "expected.run")
    assert _bytes(fitted.search(_TOPICS, depth=2), tmp_path / "searched.run") == expected
    runs = [s.search(_TOPICS, depth=2) for s in fitted.systems]
    assert _bytes(fitted.fuse(runs, depth=2, tag="fusion"), tmp_path / "fused.run") == expected
    # the weights tuned at 1,000 would have ranked d1 first for q1: the search did tune again
    given = Fusion(_systems(), weights=[0.6, 0.4]).fit(_DEV)
    assert _bytes(given.search(_TOPICS, depth=2), tmp_path / "given.run") != expected
    assert fitted.depth_weights_ == {1000: [0.6, 0.4], 2: [0.7, 0.3]} and fitted.weights_ == [0.6, 0.4]
    # at the depth it was fit at, as before
    assert _bytes(fitted.search(_TOPICS), tmp_path / "a.run") == _bytes(_tuned_at(1000).search(_TOPICS), tmp_path / "b")


def test_a_fusion_fit_runs_at_depth_2_keeps_its_dev_runs_to_search_at_1000(tmp_path):
    at_2 = _tuned_at(2)
    assert at_2.depth_ == 2 and at_2.weights_at(1000) == [0.6, 0.4] and at_2.weights_ == [0.7, 0.3]
    made = _bytes(at_2.search(_TOPICS), tmp_path / "made.run")
    assert made == _bytes(_tuned_at(1000).search(_TOPICS), tmp_path / "expected.run")


def test_a_learning_pyterrier_retriever_over_a_fusion_searches_at_its_depth(tmp_path):
    pytest.importorskip("pyterrier")
    from clirkit.pyterrier import qrels_frame, retriever, topics_frame

    transformer = retriever(Fusion(_systems()), resources=Resources(), depth=2)
    frame, qrels = topics_frame(_TOPICS), qrels_frame(_DEV.qrels("dev"))
    transformer.fit(frame, qrels, frame, qrels)
    made = Run.from_frame(transformer.transform(frame), tag="fusion")
    assert _bytes(made, tmp_path / "made.run") == _bytes(_tuned_at(2).search(_TOPICS, depth=2), tmp_path / "e.run")


@pytest.mark.parametrize("depth", [0, -5, "abc", None, 1000.0, True])
def test_a_fusion_checks_the_depth_before_anything_else(depth):
    says = "^" + re.escape(f"depth must be an integer >= 1, got {depth!r}") + "$"
    fusion = Fusion(_systems()).fit(_DEV)
    runs = [s.search(_TOPICS) for s in fusion.systems]
    with pytest.raises(ClirkitError, match=says):
        fusion.fuse(runs, depth=depth)
    with pytest.raises(ClirkitError, match=says):
        fusion.search(_TOPICS, depth=depth)
    with pytest.raises(ClirkitError, match=says):
        Fusion().fit_runs(runs, _DEV.qrels("dev"), depth=depth)
    with pytest.raises(ClirkitError, match=says):  # not fitted: the depth is named first all the same
        Fusion().fuse(runs, depth=depth)


# psq over an index translated before, with an option of translating the queries ------------------------------


@pytest.fixture
def translated_dir(indexed_dir):
    """``indexed_dir`` with es-en.npz and ix.en.npz, the index of its documents translated into English, and q.tsv."""
    from test_docpsq import REVERSE

    from clirkit.cli import main
    from clirkit.translation import save_table

    save_table(REVERSE, indexed_dir / "es-en.npz")
    make = ["psq", "--index", str(indexed_dir / "ix.npz"), "--table", str(indexed_dir / "es-en.npz"), "-q"]
    assert main([*make, "--save-index", str(indexed_dir / "ix.en.npz"), "--shards", "2"]) == 0
    (indexed_dir / "q.tsv").write_text("q1\tlight\n", encoding="utf-8")
    return indexed_dir


@pytest.mark.parametrize(
    "options, named",
    [
        (["--mode", "pirkola"], "--mode pirkola applies"),
        (["--mode", "all", "--renormalize-in-vocabulary"], "--mode all and --renormalize-in-vocabulary apply"),
        (["--source-stopwords-top", "5"], "--source-stopwords-top 5 applies"),
        (["--target-stopwords-top", "3"], "--target-stopwords-top 3 applies"),
    ],
)
def test_psq_over_a_translated_index_with_an_option_of_the_queries_side_says_so_in_one_line(
    translated_dir, capsys, options, named
):
    from clirkit.cli import main

    index, out = translated_dir / "ix.en.npz", translated_dir / "p.run"
    search = ["psq", "--index", str(index), "--queries", str(translated_dir / "q.tsv"), "-o", str(out), "-q"]
    assert main([*search, *options]) == 2
    leave = named.rpartition(" appl")[0]
    assert capsys.readouterr().err == (
        f"clirkit: error: {index}: an index whose documents were translated already (into 'en'), and {named} to "
        f"translating the queries only: search the index in the documents' language with a table into it "
        f"(--table), or leave out {leave} to search this one\n"
    )
    assert not out.exists()
    assert main([*search]) == 0 and out.exists()  # without the option: searched


# JSONL queries: the keys of a TSV header, and the verbs' own options in the messages -------------------------


def test_a_jsonl_query_record_of_qid_and_query_is_read_as_a_tsv_header_of_them_is(tmp_path):
    from clirkit.formats import read_queries

    (tmp_path / "q.jsonl").write_text('{"qid": "a", "query": "luz"}\n{"qid": "b", "query": "agua"}\n', "utf-8")
    (tmp_path / "q.tsv").write_text("qid\tquery\na\tluz\nb\tagua\n", encoding="utf-8")
    assert read_queries(tmp_path / "q.jsonl") == read_queries(tmp_path / "q.tsv") == {"a": "luz", "b": "agua"}
    (tmp_path / "t.jsonl").write_text('{"qid": "a", "query": "luz", "title": "dios"}\n', encoding="utf-8")
    assert read_queries(tmp_path / "t.jsonl") == {"a": "dios"}  # the keys looked for first still win


def _verbs_reading(folder, queries):
    """The command lines of search, collection and run (a [collection] table) reading ``queries``."""
    (folder / "x.qrels").write_text("a 0 Gen.1.3 1\n", encoding="utf-8")
    (folder / "x.toml").write_text(
        f'[collection]\ndocuments = "docs.tsv"\nqueries = "{queries.name}"\nqrels = "x.qrels"\nsource_lang = "en"\n'
        'target_lang = "es"\n[systems.B]\nkind = "bm25"\n',
        encoding="utf-8",
    )
    files = ["--documents", str(folder / "docs.tsv"), "--qrels", str(folder / "x.qrels")]
    return {
        "search": ["search", "--index", str(folder / "ix.npz"), "--queries", str(queries), "-o", str(folder / "r")],
        "collection": ["collection", *files, "--queries", str(queries), "--source-lang", "en", "--target-lang", "es"]
        + ["-o", str(folder / "c")],
        "run": ["run", str(folder / "x.toml"), "-o", str(folder / "out")],
    }


@pytest.mark.parametrize(
    "verb, text_remedy, id_remedy",
    [
        ("search", "name it with --query-fields", "name it with --query-id-field"),
        ("collection", "name it with --query-fields", "rename it to one of those looked for"),
        ("run", "name it with query_fields in [collection]", "rename it to one of those looked for"),
    ],
)
def test_a_jsonl_query_key_not_found_is_named_with_the_verbs_own_option(
    indexed_dir, capsys, verb, text_remedy, id_remedy
):
    from clirkit.cli import main

    queries = indexed_dir / "q.jsonl"
    queries.write_text('{"qid": "a", "q": "luz"}\n', encoding="utf-8")
    assert main([*_verbs_reading(indexed_dir, queries)[verb], "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {queries}:1: no query text key (looked for title, description, text, query, question; "
        f"found: qid, q); {text_remedy}\n"
    )
    queries.write_text('{"num": "a", "title": "luz"}\n', encoding="utf-8")
    assert main([*_verbs_reading(indexed_dir, queries)[verb], "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {queries}:1: no query id key (looked for qid, query_id, id, _id; found: num, title); "
        f"{id_remedy}\n"
    )
    if verb != "run":  # the option named reads the file
        queries.write_text('{"qid": "a", "q": "luz"}\n', encoding="utf-8")
        assert main([*_verbs_reading(indexed_dir, queries)[verb], "--query-fields", "q", "-q"]) == 0


# a sharded index's jobs checked when it is opened --------------------------------------------------------------


@pytest.mark.parametrize("jobs", [0, -2, -3, 2.5, "2", True, None])  # -1: one per core, as joblib's
def test_a_sharded_index_refuses_a_jobs_that_is_not_an_integer_of_one_or_more_when_opened(index, tmp_path, jobs):
    from clirkit.retrieval.shards import ShardedIndex, load_index
    from clirkit.systems import BM25Search

    ShardedIndex.split(index, 3).save(tmp_path / "ix.npz")
    index.save(tmp_path / "one.npz")
    says = "^" + re.escape(f"jobs must be an integer >= 1 (or -1: one per core), got {jobs!r}") + "$"
    with pytest.raises(ClirkitError, match=says):
        load_index(tmp_path / "ix.npz", jobs=jobs, backend="threading")
    with pytest.raises(ClirkitError, match=says):
        ShardedIndex.load(tmp_path / "ix.npz", jobs=jobs)
    with pytest.raises(ClirkitError, match=says):  # a one-file index takes the same arguments
        load_index(tmp_path / "one.npz", jobs=jobs)
    opened = load_index(tmp_path / "ix.npz", jobs=2, backend="threading")
    searcher = BM25Search().fit(Resources(index=opened))
    assert len(searcher.search({"a": "dios", "b": "luz"}).qids) > 0
    opened.jobs = jobs  # set after opening: refused by the search, not by joblib
    with pytest.raises(ClirkitError, match=says):
        searcher.search({"a": "dios", "b": "luz"})


# a qrels grade quoted cut, and so marked ------------------------------------------------------------------------

_GRADES = "; give an integer grade (0: not relevant; 1, 2, ...: relevant)"


@pytest.mark.parametrize(
    "grade, quoted",
    [
        ("1234567890123456789012345678", "'12345678901234567890...' (28 characters) is out of range (|grade| < 10^9)"),
        ("12345678901234567890", "'12345678901234567890' is out of range (|grade| < 10^9)"),
        ("x" * 45, f"'{'x' * 40}...' (45 characters) is not an integer"),
        ("1.5", "'1.5' is not an integer"),
    ],
)
def test_a_qrels_grade_cut_in_the_message_is_quoted_with_an_ellipsis_and_its_length(tmp_path, grade, quoted):
    from clirkit.formats import read_qrels

    path = tmp_path / "q.qrels"
    path.write_text(f"q1 0 d1 {grade}\n", encoding="utf-8")
    with pytest.raises(ClirkitError) as caught:
        read_qrels(path)
    assert str(caught.value) == f"{path}:1: relevance grade {quoted}{_GRADES}"


# eval --baseline with one RUN -----------------------------------------------------------------------------------


def test_eval_refuses_baseline_with_one_run_as_it_refuses_the_tests_options(tmp_path, capsys):
    from clirkit.cli import main

    (tmp_path / "q.qrels").write_text("q1 0 d1 1\n", encoding="utf-8")
    for name in ("a.run", "b.run"):
        (tmp_path / name).write_text("q1 Q0 d1 1 3.0 a\n", encoding="utf-8")
    qrels, a, b = str(tmp_path / "q.qrels"), str(tmp_path / "a.run"), str(tmp_path / "b.run")
    assert main(["eval", "--qrels", qrels, a, "--baseline", a, "-m", "AP", "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "clirkit: error: --baseline names the run the others are tested against, and one RUN makes no test: drop "
        "--baseline\n"
    )
    assert main(["eval", "--qrels", qrels, a, "--test", "none", "--baseline", a, "-m", "AP", "--quiet"]) == 2
    assert "--baseline names the run the others are tested against, and one RUN makes no test: drop --baseline" in (
        capsys.readouterr().err
    )  # (--test none, no test, is accepted with one RUN: round 23)
    assert main(["eval", "--qrels", qrels, a, b, "--baseline", b, "-m", "AP", "--quiet"]) == 0
    assert f"against {b} (paired randomization test" in capsys.readouterr().out


# ttable show: translations tied for DT's first place -----------------------------------------------------------


def test_ttable_show_says_how_many_translations_tie_for_dts_first_place(tmp_path, capsys):
    from clirkit.cli import main

    (tmp_path / "tied.lex").write_text(
        "cielos heavens 0.3\ncrió heavens 0.3\nlos heavens 0.3\nde heavens 0.1\nluz light 0.7\nla light 0.3\n",
        encoding="utf-8",
    )
    assert main(["ttable", "show", str(tmp_path / "tied.lex"), "heavens", "light", "-n", "2"]) == 0
    assert capsys.readouterr().out == (
        "heavens\t(4 translations; the first 3 tie: DT takes the rarest of them in the index it searches)\n"
        "  cielos\t0.300000\n  crió\t0.300000\nlight\t(2 translations)\n  luz\t0.700000\n  la\t0.300000\n"
    )
    # a dictionary's order breaks the tie (DT's rule 2), as show lists it: no tie
    (tmp_path / "d.pairs").write_text("heavens cielos\nheavens los\n", encoding="utf-8")
    show = ["ttable", "show", str(tmp_path / "d.pairs"), "heavens", "--format", "pairs", "--weights", "uniform"]
    assert main(show) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "heavens\t(2 translations)" and out.splitlines()[1].startswith("  cielos\t")
