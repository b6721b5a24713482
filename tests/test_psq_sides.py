"""PSQ's two sides as systems of their own: QueryPSQ (the queries translated) and DocPSQ (the documents), each with
its side's concrete defaults and only its own parameters; PSQ chooses one at fit and gives the same run as the
one it chose, from Python and from an experiment file (kinds querypsq and docpsq)."""

from __future__ import annotations

import inspect

import pytest
from test_docpsq import REVERSE

from clirkit.docpsqsystem import DocPSQ
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.psq import SIDE_DEFAULTS
from clirkit.psqsystem import PSQ
from clirkit.querypsq import QueryPSQ
from clirkit.translation import TranslationTable

FORWARD = TranslationTable.from_triples(
    ["light", "light", "god", "darkness", "waters"],
    ["luz", "lumbrera", "dios", "tinieblas", "aguas"],
    [0.7, 0.3, 1.0, 1.0, 1.0],
    params={"source_lang": "en", "target_lang": "es"},
)
TOPICS = {"q1": "light and darkness", "q2": "the god of the waters", "q3": "light"}


def run_rows(run) -> list:
    return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))


@pytest.mark.parametrize(("cls", "side"), [(QueryPSQ, "queries"), (DocPSQ, "documents")])
def test_each_side_has_its_sides_defaults_and_no_parameter_of_the_other(cls, side):
    params = cls().get_params()
    assert {k: params[k] for k in SIDE_DEFAULTS[side]} == SIDE_DEFAULTS[side]
    assert "auto" not in [params[k] for k in ("min_prob", "cumulative", "max_options", "scoring")]
    assert "translate" not in params
    only = {"queries": {"mode", "renormalize_in_vocabulary", "target_stopwords_top"}, "documents": {"background"}}
    other = only["documents" if side == "queries" else "queries"]
    assert not other & set(inspect.signature(cls).parameters)
    with pytest.raises(TypeError):
        cls(**{sorted(other)[0]: 1})


def test_psq_gives_the_run_of_the_side_it_chose(index):
    chosen = PSQ().fit(Resources(index=index, table=FORWARD))
    assert isinstance(chosen.system_, QueryPSQ) and chosen.translate_ == "queries"
    assert run_rows(chosen.search(TOPICS)) == run_rows(
        QueryPSQ().fit(Resources(index=index, table=FORWARD)).search(TOPICS)
    )
    chosen = PSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE))
    assert isinstance(chosen.system_, DocPSQ) and chosen.translate_ == "documents"
    alone = DocPSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE))
    assert run_rows(chosen.search(TOPICS)) == run_rows(alone.search(TOPICS))
    assert alone.search(TOPICS).tag == "DocPSQ" and chosen.search(TOPICS).tag == "PSQ"
    # the learned attributes are the side system's, read through PSQ
    assert chosen.index_ is chosen.system_.index_ and chosen.table_ is chosen.system_.table_


def test_psq_passes_the_values_it_was_given_and_refuses_those_the_side_lacks(index):
    chosen = PSQ(min_prob=0.2, max_options=3, alpha=0.3, source_lang="en").fit(
        Resources(index=index, reverse_table=REVERSE)
    )
    assert (chosen.system_.min_prob, chosen.system_.max_options, chosen.system_.alpha) == (0.2, 3, 0.3)
    assert chosen.system_.cumulative == SIDE_DEFAULTS["documents"]["cumulative"]  # left auto: the side's
    with pytest.raises(
        ClirkitError, match=r"renormalize_in_vocabulary \(--renormalize-in-vocabulary\): for translate = queries only"
    ):
        PSQ(translate="documents", renormalize_in_vocabulary=True).fit(Resources(index=index, reverse_table=REVERSE))
    with pytest.raises(ClirkitError, match="background = 'parallel': a model of query-language words"):
        PSQ(background="parallel").fit(
            Resources(index=index, table=FORWARD)
        )  # bm25 on the query side: it would be ignored


def test_one_rule_chooses_the_side_from_the_resources_a_tables_role_being_its_keyword(index):
    psq = PSQ()
    assert psq.side(Resources(index=index, reverse_table=REVERSE)) == "documents"
    assert psq.side(Resources(index=index, table=FORWARD)) == "queries"
    assert psq.side(Resources(index=index, table=REVERSE)) == "queries"  # given as table: it is read for the queries
    with pytest.raises(ClirkitError, match="the table translates into 'en' but the index is in 'es'"):
        psq.fit(Resources(index=index, table=REVERSE))
    only_queries = PSQ(mode="all")  # a query-side-only parameter chooses the queries
    assert only_queries.side(Resources(index=index, reverse_table=REVERSE)) == "queries"
    assert PSQ(translate="documents").side(Resources(index=index, table=FORWARD)) == "documents"


def test_the_psq_verb_places_its_table_files_by_the_direction_they_say_as_psq_chooses_the_side(index):
    """``clirkit psq --table FILE``: a file has no role of its own; the verb reads its direction (a table from the
    index's language translates the documents) unless --translate or a query-side-only option chooses the side,
    and gives it as the table of that side, from which PSQ.side chooses the same."""
    from clirkit.cli.psqchecks import resources, side_of_files

    cases = [
        (PSQ(), FORWARD, "queries"),
        (PSQ(), REVERSE, "documents"),
        (PSQ(mode="all"), REVERSE, "queries"),
        (PSQ(translate="documents"), FORWARD, "documents"),
        (PSQ(translate="queries"), REVERSE, "queries"),
    ]
    for psq, table, side in cases:
        assert side_of_files(psq, index, table, None) == side
        given = resources(index, table, None, documents=side == "documents", quiet=True)
        assert psq.side(given) == side


def test_docpsq_fits_resources_by_their_reverse_table_and_refuses_a_query_side_second_table(index):
    resources = Resources(index=index, reverse_table=REVERSE, source_lang="en")
    fitted = DocPSQ().fit(resources)
    assert fitted.table_ is REVERSE
    assert run_rows(fitted.search(TOPICS)) == run_rows(
        DocPSQ(source_lang="en").fit(Resources(index=index, reverse_table=REVERSE)).search(TOPICS)
    )
    with pytest.raises(ClirkitError, match="table2: the resources' second table is the query side's"):
        DocPSQ().fit(Resources(index=index, reverse_table=REVERSE, table2=FORWARD, source_lang="en"))
    assert QueryPSQ().fit(Resources(index=index, table=FORWARD)).inputs(Resources(index=index, table=FORWARD)) == {
        "index": {},
        "table": {},
    }


EXPERIMENT = """collection = "{mini}"
measures = ["AP"]
keep_runs = ["*"]
[systems.auto]
kind = "psq"
[systems.docs]
kind = "docpsq"
[systems.auto-queries]
kind = "psq"
translate = "queries"
[systems.queries]
kind = "querypsq"
"""


def test_an_experiments_querypsq_and_docpsq_give_psqs_runs(mini, tmp_path):
    from clirkit.experiment import Experiment, run_experiment
    from clirkit.formats import read_run

    path = tmp_path / "sides.toml"
    path.write_text(EXPERIMENT.format(mini=mini), encoding="utf-8")
    run_experiment(Experiment.read(path), tmp_path / "out", quiet=True)

    def rows(name: str) -> list:
        (found,) = (tmp_path / "out").rglob(f"{name}.test.run.gz")
        return run_rows(read_run(str(found)))

    assert rows("auto") == rows("docs") and rows("auto")
    assert rows("auto-queries") == rows("queries") and rows("queries") != rows("docs")
