"""Edge round 29 (an independent test of topics, the Python API, experiment files and PSQ backgrounds): a topic's
language declared by name, on the ``<topics>`` around it or on a field is checked as a code on the topic is; the
Python API's wrong arguments (no Analyzer, no token lists, jobs, no frame, no mapping, one run twice) are one-line
ClirkitErrors."""

from __future__ import annotations

import re

import pytest

from clirkit.analysis import Analyzer
from clirkit.documents import Documents
from clirkit.errors import ClirkitError
from clirkit.formats.topics import read_markup_topics
from clirkit.retrieval.index import Index

HINT = "; choose one with --source-lang"


def _clef(topics_tag: str = "<topics>", topic_tag: str = "<topic>", title_tag: str = "<title>") -> str:
    return f"{topics_tag}\n{topic_tag}\n<identifier>1</identifier>\n{title_tag}la casa</title>\n</topic>\n</topics>\n"


@pytest.mark.parametrize(
    "text, says",
    [
        (_clef(topic_tag='<topic lang="spanish">'), 't.xml:2: topic 1 is in es (lang="spanish"), not in en'),
        (_clef(topic_tag='<topic lang="Chinese (Simplified)">'), "t.xml:2: topic 1 is in zh"),
        (_clef(topic_tag='<topic lang="es-ES">'), 't.xml:2: topic 1 is in es (lang="es-ES"), not in en'),
        (_clef(topic_tag='<topic xml:lang="es">'), 't.xml:2: topic 1 is in es (xml:lang="es"), not in en'),
        (_clef(topics_tag='<topics lang="es">'), 't.xml:2: topic 1 is in es (<topics lang="es"> at line 1), not in en'),
        (_clef(title_tag='<title lang="es">'), 't.xml:4: the <title> of topic 1 is in es (lang="es"), not in en'),
    ],
    ids=["name", "name-with-script", "region", "xml-lang", "outer", "field"],
)
def test_a_topic_language_declared_another_way_is_checked_not_read_as_the_callers(text, says):
    with pytest.raises(ClirkitError, match=rf"^{re.escape(says)}.*{re.escape(HINT)}"):
        read_markup_topics("t.xml", text, ["title"], lang="en")
    declared = "zh" if "Chinese" in text else "es"
    assert read_markup_topics("t.xml", text, ["title"], lang=declared) == {"1": "la casa"}
    assert read_markup_topics("t.xml", text, ["title"]) == {"1": "la casa"}  # no language asked: nothing compared


@pytest.mark.parametrize(
    "text, line, how",
    [
        (_clef(topic_tag='<topic lang="klingon">'), 2, 'lang="klingon"'),
        (_clef(topics_tag='<topics lang="1">'), 1, '<topics lang="1"> at line 1'),
        (_clef(title_tag="<title lang='english spanish'>"), 4, 'lang="english spanish"'),
    ],
    ids=["topic", "outer", "field"],
)
def test_a_language_declaration_that_cannot_be_read_is_said_once_and_read_as_the_callers(text, line, how, capsys):
    """A language's name clirkit does not know (Amharic, Svenska, ...) was read before names were: said, not
    refused (a review of round 29's fix)."""
    twice = text.replace(
        "</topics>", "<topic>\n<identifier>2</identifier>\n<title>el perro</title>\n</topic>\n</topics>"
    )
    if "klingon" in text:
        twice = twice.replace("<topic>\n<identifier>2", '<topic lang="klingon">\n<identifier>2')
    assert read_markup_topics("t.xml", twice, ["title"], lang="en") == {"1": "la casa", "2": "el perro"}
    assert capsys.readouterr().err == (
        f"t.xml:{line}: could not read the language declaration {how}: read as en (write a language code such as es, "
        "ISO 639-1)\n"
    )


@pytest.mark.parametrize(
    "declared, asked", [("nb", "no"), ("Norwegian", "nb"), ("nor", "nb"), ("cmn", "zh"), ("iw", "he"), ("und", "en")]
)
def test_codes_of_one_written_language_and_no_language_are_not_refused(declared, asked):
    text = _clef(topic_tag=f'<topic lang="{declared}">')
    assert read_markup_topics("t.xml", text, ["title"], lang=asked) == {"1": "la casa"}


def test_only_a_tag_holding_topics_declares_their_language():
    text = '<html lang="es">\n' + _clef() + "</html>\n"
    assert read_markup_topics("t.xml", text, ["title"], lang="en") == {"1": "la casa"}


def test_a_fields_own_language_holds_over_the_topics_and_the_outer_ones():
    text = _clef('<topics lang="es">', '<topic lang="es">', '<title lang="en">')
    assert read_markup_topics("t.xml", text, ["title"], lang="en") == {"1": "la casa"}
    inner = _clef('<topics lang="es">', '<topic lang="english">')
    assert read_markup_topics("t.xml", inner, ["title"], lang="en") == {"1": "la casa"}
    closed = '<topics><set lang="es"></set>\n' + _clef("")[1:]  # a declaration closed before the topic: not its
    assert read_markup_topics("t.xml", closed, ["title"], lang="en") == {"1": "la casa"}


def test_an_empty_language_declaration_says_nothing():
    assert read_markup_topics("t.xml", _clef(topic_tag='<topic lang="">'), ["title"], lang="en") == {"1": "la casa"}


# --------------------------------------------------------------------------- B: the Python API's one-line errors


@pytest.mark.parametrize(
    "make, says",
    [
        (
            lambda A: Documents(["a"], tokens=[["x"]], analyzer="es"),
            "Documents(analyzer=): expected an Analyzer (clirkit.analysis.Analyzer), got 'es', a str: give "
            "Analyzer('es')",
        ),
        (
            lambda A: Documents(["a"], ["x"]).tokens("es"),
            "Documents.tokens(analyzer): expected an Analyzer",
        ),
        (
            lambda A: Documents(["a"], tokens=5, analyzer=A),
            "Documents(tokens=): expected a list of token lists (one per document), got 5",
        ),
        (
            lambda A: Documents(["a"], tokens=["xy"], analyzer=A),
            "Documents(tokens=): document 1 (in input order) is a str, not a list of its terms",
        ),
        (
            lambda A: Documents(["a"], tokens=[None], analyzer=A),
            "Documents(tokens=): document 1 (in input order) is None (NoneType), not a list of its terms",
        ),
        (
            lambda A: Index.from_tokens(["a"], [["x"]], "es"),
            "Index.from_tokens: expected an Analyzer (clirkit.analysis.Analyzer), got 'es', a str",
        ),
    ],
    ids=["documents-analyzer-str", "tokens-analyzer-str", "tokens-int", "tokens-of-str", "tokens-of-none", "index"],
)
def test_documents_and_index_refuse_what_is_no_analyzer_or_token_lists_in_one_line(make, says):
    with pytest.raises(ClirkitError, match=f"^{re.escape(says)}"):
        make(Analyzer("es"))


def test_documents_take_token_lists_from_a_generator():
    es = Analyzer("es")
    assert Documents(["a"], tokens=(t for t in [["casa"]]), analyzer=es).tokens(es) == [["casa"]]


@pytest.mark.parametrize("jobs", [-3, "2", 0, 1.0, True])
def test_documents_refuse_jobs_that_are_no_count_of_workers(jobs):
    with pytest.raises(ClirkitError, match=rf"^jobs must be an integer >= 1 \(or -1: one per core\), got {jobs!r}$"):
        Documents(["a"], ["hola mundo"], jobs=jobs)


def test_qrels_from_frame_refuses_what_is_no_frame_as_run_from_frame_does():
    from clirkit.run import Qrels, Run

    for frame, got in ((None, "NoneType"), ({"qid": ["1"]}, "dict")):
        with pytest.raises(ClirkitError, match=f"^a qrels frame: expected a pandas DataFrame, got {got}$"):
            Qrels.from_frame(frame)
        with pytest.raises(ClirkitError, match=f"^a run frame: expected a pandas DataFrame, got {got}$"):
            Run.from_frame(frame)


def test_resources_refuse_topics_not_by_split_as_a_clirkit_error_still_a_type_error():
    from clirkit.estimator import Resources

    for name in ("topics", "qrels"):
        with pytest.raises(ClirkitError, match=f"^{name} must map each split to its {name}") as caught:
            Resources(**{name: [1, 2]})
        assert isinstance(caught.value, TypeError)


def test_fusion_refuses_to_tune_on_one_run_given_twice_as_it_refuses_one_system_twice():
    from clirkit.fusion.system import Fusion
    from clirkit.run import Qrels, Run

    run = Run.from_dict({"1": {"d1": 2.0, "d2": 1.0}, "2": {"d2": 3.0, "d3": 1.0}})
    other = Run.from_dict({"1": {"d2": 2.0, "d1": 1.0}, "2": {"d3": 3.0, "d2": 1.0}})
    qrels = Qrels(["1", "2"], ["d1", "d3"], [1, 1])
    says = "^dev_runs: run 2 is run 1 again: a fusion fuses distinct runs, give each once$"
    with pytest.raises(ClirkitError, match=says):
        Fusion(weights=None).fit_runs([run, run], qrels)
    with pytest.raises(ClirkitError, match="^dev_runs: run 3 is run 1 again"):
        Fusion(weights=None).fit_runs([run, other, run], qrels)
    assert Fusion(weights=[0.5, 0.5]).fit_runs([run, run], qrels).weights_ == [0.5, 0.5]  # given: nothing tuned
    assert len(Fusion(weights=None).fit_runs([run, other], qrels).weights_) == 2


# --------------------------------------------------------------------------- C: an experiment file's split_seed


def _collection(seed) -> dict:
    return {
        "documents": "docs.tsv",
        "queries": "topics.tsv",
        "qrels": "all.qrels",
        "source_lang": "en",
        "target_lang": "es",
        "split": {"dev": 0.5, "test": 0.5},
        "split_seed": seed,
    }


@pytest.mark.parametrize("seed", [2**63, 2**64, 2**64 + 1])
def test_split_seed_is_bounded_as_seed_and_split_seed_on_the_command_line(tmp_path, seed):
    from clirkit.datasets.plain import PlainCollection

    for name in ("docs.tsv", "topics.tsv", "all.qrels"):
        (tmp_path / name).write_text("", encoding="utf-8")
    says = f"^x.toml: split_seed must be an integer >= 0 \\(at most 2\\*\\*63 - 1\\), got {seed}$"
    with pytest.raises(ClirkitError, match=says):
        PlainCollection.from_dict(_collection(seed), where="x.toml: ", base=tmp_path)
    assert PlainCollection.from_dict(_collection(2**63 - 1), where="x.toml: ", base=tmp_path).split_seed == 2**63 - 1


def test_an_experiment_files_split_seed_over_the_bound_is_one_line(tmp_path, capsys):
    from clirkit.cli import main

    for name in ("d.tsv", "q.tsv", "r.txt"):
        (tmp_path / name).write_text("", encoding="utf-8")
    (tmp_path / "x.toml").write_text(
        '[collection]\ndocuments = "d.tsv"\nqueries = "q.tsv"\nqrels = "r.txt"\nsource_lang = "en"\n'
        'target_lang = "es"\nsplit = {dev = 0.5, test = 0.5}\nsplit_seed = 18446744073709551617\n'
        '[systems.BM25]\nkind = "bm25"\n',
        encoding="utf-8",
    )
    assert main(["run", str(tmp_path / "x.toml"), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.endswith("split_seed must be an integer >= 0 (at most 2**63 - 1), got 18446744073709551617\n")
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- D: a PSQ background of no counts


def test_a_term_count_file_whose_counts_are_all_zero_is_refused_naming_it(tmp_path):
    from clirkit.termcounts import read_counts

    path = tmp_path / "bg.cnt"
    path.write_text("0 love\n0 god\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=rf"^{re.escape(str(path))}: every count is 0: "):
        read_counts(path, Analyzer("en"))
    path.write_text("0 love\n2 god\n", encoding="utf-8")
    assert read_counts(path, Analyzer("en", stemmer=None)) == ({"love": 0, "god": 2}, 2)


def _psq_with_background(indexed_dir):
    """The background file (to be written) and the argv of a document-side psq over ``indexed_dir``'s index with
    lm scoring and that background (a table from the documents' language: the documents translated)."""
    from clirkit.translation import TranslationTable, save_table

    table = TranslationTable.from_triples(
        ["luz", "dios"], ["light", "god"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
    )
    save_table(table, str(indexed_dir / "es2en.npz"))
    (indexed_dir / "q.tsv").write_text("q1\tgod light\n", encoding="utf-8")
    counts = indexed_dir / "bg.cnt"
    argv = ["psq", "--index", str(indexed_dir / "ix.npz"), "--queries", str(indexed_dir / "q.tsv")]
    argv += ["--table", str(indexed_dir / "es2en.npz"), "--scoring", "lm", "--background", str(counts), "-q"]
    return counts, argv


def test_psq_background_of_zero_counts_is_one_line_and_status_2(indexed_dir, capsys):
    from clirkit.cli import main

    counts, argv = _psq_with_background(indexed_dir)
    counts.write_text("0 love\n", encoding="utf-8")
    assert main([*argv, "-o", str(indexed_dir / "zero.run")]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"clirkit: error: {counts}: every count is 0: a term-count file gives each word's occurrences in a "
        "corpus (COUNT TOKEN), at least one of them > 0\n"
    )
    assert not (indexed_dir / "zero.run").exists()
    counts.write_text("3 light\n0 love\n", encoding="utf-8")
    assert main([*argv, "-o", str(indexed_dir / "ok.run")]) == 0
    assert (indexed_dir / "ok.run").read_text(encoding="utf-8").startswith("q1 Q0 ")


def test_a_background_sharing_no_word_with_the_index_is_refused_naming_it(indexed_dir, capsys):
    from clirkit.cli import main

    counts, argv = _psq_with_background(indexed_dir)
    counts.write_text("5 ahoraqui\n3 zzyzx\n", encoding="utf-8")  # no word of the translated (English) index
    assert main([*argv, "-o", str(indexed_dir / "none.run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"clirkit: error: {counts}: none of its 2 words (analyzed as en) is a word of the index")
    assert err.count("\n") == 1 and not (indexed_dir / "none.run").exists()
    counts.write_text("5 ahoraqui\n3 god\n", encoding="utf-8")
    assert main([*argv, "-o", str(indexed_dir / "one.run")]) == 0


def test_a_doctype_with_an_internal_subset_is_skipped_like_one_without():
    text = (
        '<?xml version="1.0"?>\n<!DOCTYPE topics [\n  <!ELEMENT topics (top*)>\n  <!ENTITY gt2 "]>">\n]>\n'
        "<topics>\n<top><num>1</num><title>light of god</title></top>\n"
        "<top><num>2</num><title>water</title></top>\n</topics>\n"
    )
    assert read_markup_topics("t.xml", text, ["title"]) == {"1": "light of god", "2": "water"}
    with pytest.raises(ClirkitError, match=r"^t.xml:1: text outside <top> "):  # a subset never closed
        read_markup_topics("t.xml", '<!DOCTYPE t [ <!ENTITY x "]">\n<top><num>1</num><title>a</title></top>', ["title"])


def test_a_topics_lang_attribute_is_its_own_not_one_ending_in_lang():
    topic = "<topics><topic {}><identifier>1</identifier><title>la luz del mundo</title></topic></topics>"
    for attributes in ('src-lang="en" lang="es"', "lang='es' src-lang=en", 'title="a lang=en" lang="es"'):
        with pytest.raises(ClirkitError, match=r'^t.xml:1: topic 1 is in es \(lang="es"\), not in en'):
            read_markup_topics("t.xml", topic.format(attributes), ["title"], lang="en")
    for attributes in ('orig-lang="es" lang="en"', 'xml:lang="en" data-lang="es"', 'srclang="es"'):
        assert read_markup_topics("t.xml", topic.format(attributes), ["title"], lang="en") == {"1": "la luz del mundo"}
