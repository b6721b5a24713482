"""The Python API and experiment files at their edges (edge test 8): an SCS model's thresholds and MSE targets are
lists of finite numbers, its MSE targets serve the MSE loss only and it trains at least one epoch, checked when an
experiment file is read and by ``check_params``; a bool is no number of a grouped parameter; a ranker boosted from a
run refuses topics the run has no row for; wrong Python arguments are ClirkitErrors said at fit (a boost's base, a
fusion's members and weights, a run's scores), topics and qrels given as paths are read, and the messages on
tables say the Python way."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused
from test_rerank_contract import stage  # noqa: F401 - the fixture

from clirkit.boost import BoostRanker
from clirkit.constraints import InvalidParameterError
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.scs import SCSModel
from clirkit.scs.params import Schedule

_SCS = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.S]\nkind = "scs"\nepochs = 1\n{more}'
_NUMBERS = "must be {none}a list or tuple of finite numbers{bounds}. Got {value} instead."

# ------------------------------------------------------------------ 5. thresholds and MSE targets are finite numbers


@pytest.mark.parametrize(
    "more, key, none, value",
    [
        ('loss = "mse"\nmse_targets = [0, "a", 1]\n', "mse_targets", "None or ", "[0, 'a', 1]"),
        ('loss = "mse"\nmse_targets = [[0], 0.5, 1]\n', "mse_targets", "None or ", "[[0], 0.5, 1]"),
        ('loss = "mse"\nmse_targets = [0, nan, 1]\n', "mse_targets", "None or ", "[0, nan, 1]"),
        ('loss = "mse"\nmse_targets = [0, 0.5, inf]\n', "mse_targets", "None or ", "[0, 0.5, inf]"),
        ('loss = "mse"\nmse_targets = [true, 0.5, 1]\n', "mse_targets", "None or ", "[True, 0.5, 1]"),
        ('thresholds = ["a", 0.5]\n', "thresholds", "", "['a', 0.5]"),
        ('thresholds = "0.2 0.7"\n', "thresholds", "", "'0.2 0.7'"),
    ],
    ids=["string", "nested", "nan", "inf", "bool", "threshold string", "one string"],
)
def test_scs_thresholds_and_mse_targets_not_finite_numbers_are_refused_when_the_file_is_read(
    mini, tmp_path, capsys, more, key, none, value
):
    bounds = " in [-1, 1]" if key == "mse_targets" else ""
    said = f"system 'S': The {key!r} parameter of SCSModel " + _NUMBERS.format(none=none, bounds=bounds, value=value)
    _refused(tmp_path, capsys, _SCS.format(mini=mini, more=more), said)


def test_scs_mse_targets_under_another_loss_are_refused_as_unused(mini, tmp_path, capsys):
    said = (
        "mse_targets: the targets of the 'mse' loss, unused by the 'sosl' loss: leave them out, or train with the "
        "'mse' loss"
    )
    _refused(tmp_path, capsys, _SCS.format(mini=mini, more="mse_targets = [0, 0.5, 1]\n"), f"system 'S': {said}")
    with pytest.raises(ClirkitError, match=rf"^{said.replace('(', '.').replace(')', '.')}$"):
        SCSModel.from_flat(mse_targets=(0, 0.5, 1)).check_params()
    SCSModel.from_flat(loss="mse", mse_targets=(0, 0.5, 1)).check_params()


@pytest.mark.parametrize(
    "params",
    [
        {"loss": "mse", "mse_targets": [0, "a", 1]},
        {"loss": "mse", "mse_targets": [0, float("nan"), 1]},
        {"loss": "mse", "mse_targets": (True, 0.5, 1)},
        {"thresholds": ["a", 0.5]},
        {"thresholds": [[0.2], 0.7]},
    ],
)
def test_scs_check_params_refuses_thresholds_and_targets_not_finite_numbers(params):
    with pytest.raises(InvalidParameterError, match="must be .*a list or tuple of finite numbers"):
        SCSModel.from_flat(**params).check_params()


# ------------------------------------------------------------------ 6. an SCS model trains at least one epoch


def test_scs_of_zero_epochs_is_refused_in_an_experiment_file_and_in_python(mini, tmp_path, capsys):
    said = "epochs 0 trains nothing (the model would be its random start): give at least 1"
    text = _SCS.format(mini=mini, more="").replace("epochs = 1", "epochs = 0")
    _refused(tmp_path, capsys, text, f"system 'S': {said}")
    with pytest.raises(ClirkitError, match=rf"^{said.replace('(', '.').replace(')', '.')}$"):
        SCSModel(schedule=Schedule(epochs=0)).check_params()
    with pytest.raises(ClirkitError, match="epochs 0 trains nothing"):
        SCSModel(schedule=Schedule(epochs=0)).fit(Resources(topics={"train": {}}, qrels={"train": None}))


# ------------------------------------------------------------------ 12. a bool is no number


@pytest.mark.parametrize(
    "cls, params, said",
    [
        (BoostRanker, {"rounds": True}, "The 'rounds' parameter of BoostRanker must be an int in the range [1, inf)"),
        (SCSModel, {"dim": True}, "The 'dim' parameter of SCSModel must be an int in the range [1, inf)"),
        (SCSModel, {"lr": False}, "The 'lr' parameter of SCSModel must be a float in the range (0.0, 10.0]"),
    ],
)
def test_a_bool_given_to_a_grouped_number_is_refused_by_check_params(cls, params, said):
    with pytest.raises(InvalidParameterError) as err:
        cls.from_flat(**params).check_params()
    assert str(err.value) == f"{said}. Got {next(iter(params.values()))!r} instead."


# ------------------------------------------------------------------ 7. a base run without the topics searched


def test_a_ranker_boosted_from_a_run_refuses_topics_the_run_lacks_and_says_those_it_partly_lacks(
    stage,  # noqa: F811
    capsys,
):
    from clirkit.boost import Boosting
    from clirkit.runsystem import RunFile
    from clirkit.systems import Boost

    c, psq, topics, _ = stage
    trained = {**c.queries("train"), **c.queries("dev")}
    resources = Resources(
        topics={"train": c.queries("train"), "dev": c.queries("dev")},
        qrels={"train": c.qrels("train"), "dev": c.qrels("dev")},
        documents=c.documents(),
    )
    base_run = psq.search(trained)
    first = next(iter(topics))
    for base, tag in ((base_run, base_run.tag), (RunFile(run=base_run).fit(), "run")):
        boost = Boost(base=base, boosting=Boosting(rounds=10, eval_every=5, beta=5.0), quiet=True).fit(resources)
        with pytest.raises(ClirkitError) as err:
            boost.search(topics, quiet=False)
        assert str(err.value) == (
            f"the base run ({tag}) has no row for any of the {len(topics)} queries (first: {first!r}): the "
            "ranker re-ranks its base's rows; give the base's run over these queries with candidates=..."
        )
        assert len(boost.search(topics, candidates=psq.search(topics))) > 0
        some = {first: topics[first], **dict(list(trained.items())[:2])}
        capsys.readouterr()
        assert set(boost.search(some, quiet=False).query_ids) <= set(trained)
        assert f"the run has no row for 1 of {len(some)} queries" in capsys.readouterr().err


# ------------------------------------------------------------------ 12. wrong Python arguments, said early and plainly


def test_a_boosted_rankers_base_that_is_no_system_or_run_is_named_at_fit():
    from clirkit.boost.base import base_system

    for base, got in (("psq", "str 'psq'"), (3, "int"), ([], "list")):
        with pytest.raises(ClirkitError) as err:
            base_system(base)
        assert str(err.value) == (
            "base: expected a fitted system (e.g. PSQ().fit(...), a Fusion, RunFile(run=PATH or a DataFrame).fit() "
            "for a run made elsewhere), a Run, Runs that split one by query, or None (standalone boosting); "
            f"got {got}"
        )
    with pytest.raises(ClirkitError, match="^base: expected a fitted system .* got str 'psq'$"):
        BoostRanker(base="psq", quiet=True).fit(
            Resources(topics={"train": {"q": "light"}}, qrels={"train": None}, documents=(["d"], ["luz"]))
        )


def test_resources_read_topics_and_qrels_given_as_paths(tmp_path):
    from pathlib import Path

    (tmp_path / "tr.tsv").write_text("q1\tthe light\nq2\tthe waters\n", encoding="utf-8")
    (tmp_path / "train.qrels").write_text("q1 0 Gen.1.3 1\nq2 0 Gen.1.6 2\n", encoding="utf-8")
    for topics, qrels in (
        (str(tmp_path / "tr.tsv"), str(tmp_path / "train.qrels")),
        (tmp_path / "tr.tsv", Path(tmp_path / "train.qrels")),
    ):
        resources = Resources(topics={"train": topics}, qrels={"train": qrels})
        assert resources.topics("train") == {"q1": "the light", "q2": "the waters"}
        assert resources.qrels("train").docids.tolist() == ["Gen.1.3", "Gen.1.6"]
    with pytest.raises(ClirkitError, match=r"nope\.qrels: no such file"):
        Resources(qrels={"train": str(tmp_path / "nope.qrels")})
    with pytest.raises(ClirkitError, match=r"nope\.tsv: no such file"):
        Resources(topics={"train": tmp_path / "nope.tsv"})
    assert Resources(topics={"test": "the waters"}).topics("test") == {"1": "the waters"}  # a str is a text


def test_resources_read_a_topics_file_of_several_languages_in_source_lang(tmp_path):
    import json

    versions = [{"lang": "eng", "topic_title": "the light"}, {"lang": "spa", "topic_title": "la luz"}]
    path = tmp_path / "topics.jsonl"
    path.write_text(json.dumps({"topic_id": "7", "topics": versions}) + "\n", encoding="utf-8")
    assert Resources(topics={"test": path}, source_lang="es").topics("test") == {"7": "la luz"}
    assert Resources(topics={"test": str(path)}, source_lang="en").topics("test") == {"7": "the light"}
    with pytest.raises(ClirkitError, match="topics.jsonl"):
        Resources(topics={"test": path})  # which of its languages is for the user to say


@pytest.mark.parametrize(
    "weights, said",
    [
        ([float("nan"), 1.0], "finite and >= 0, got nan 1"),
        ([-1.0, 2.0], "finite and >= 0, got -1 2"),
        ([float("inf"), 0.0], "finite and >= 0, got inf 0"),
        ([0.6, 0.6], "numbers that sum to 1 (interpolation), got 0.6 0.6 (sum 1.2)"),
    ],
)
def test_fusion_weights_are_refused_at_fit_before_any_system_searches(weights, said):
    from clirkit.systems import Fusion

    class Searching(BoostRanker):  # a member that must not be asked to search
        def search(self, *args, **kw):  # pragma: no cover - fails the test when called
            raise AssertionError("searched")

    with pytest.raises(InvalidParameterError) as err:
        Fusion([Searching(), Searching()], weights=weights).fit(Resources())
    assert str(err.value) == f"The 'weights' parameter of Fusion must be {said}"


def test_a_fusion_member_that_is_no_system_is_refused_at_fit():
    from clirkit.systems import BM25Search, Fusion

    with pytest.raises(ClirkitError) as err:
        Fusion(["x", BM25Search()], weights=[0.5, 0.5]).fit(Resources())
    assert str(err.value) == (
        "systems: member 1 is a str ('x'), not a system: give fitted systems (e.g. DT().fit(...), "
        "RunFile(run=...).fit() for a run)"
    )


@pytest.mark.parametrize(
    "make, given, said",
    [
        ("from_dict", {"1": {"a": float("nan")}}, "a run dict: query '1', document 'a' has score nan, not a finite"),
        ("from_dict", {"1": {"a": float("inf")}}, "a run dict: query '1', document 'a' has score inf, not a finite"),
        ("from_dict", {"1": {"a": None}}, "a run dict: query '1', document 'a' has score None, not a finite"),
        ("from_dict", {"1": ["a"]}, "a run dict: query '1' maps to a list, not to {docid: score}"),
        ("from_dict", [("1", "a", 1.0)], "a run dict: expected {qid: {docid: score}}, got list"),
        ("from_records", [("1", "a", 1.0), ("1", "b", None)], "a run record (number 2) has score None, not a finite"),
        ("from_records", [("1", "a", float("nan"))], "a run record (number 1) has score nan, not a finite"),
        ("from_records", [("1", "a", -float("inf"))], "a run record (number 1) has score -inf, not a finite"),
    ],
)
def test_runs_from_dicts_and_records_refuse_scores_that_are_not_finite_numbers(make, given, said):
    from clirkit.run import Run, ScoredDoc

    if make == "from_records":
        given = [ScoredDoc(*row) for row in given]
    with pytest.raises(ClirkitError) as err:
        getattr(Run, make)(given)
    assert str(err.value).startswith(said)
    assert Run.from_dict({"1": {"a": 1, "b": 2.5}}).docids.tolist() == ["b", "a"]


def test_a_query_side_system_given_only_a_reverse_table_is_told_which_table_it_takes(index):
    from clirkit.systems import DT, DocPSQ, QueryPSQ
    from clirkit.translation import TranslationTable

    reverse = TranslationTable.from_triples(
        ["luz", "aguas"], ["light", "waters"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
    )
    for system in (QueryPSQ(), DT()):
        with pytest.raises(ClirkitError) as err:
            system.fit(Resources(index=index, reverse_table=reverse))
        assert str(err.value) == (
            "the resources have no translation table: DT, QueryPSQ and PSQ translating the queries take table=... (a "
            "table into the documents' language); the reverse_table=... given translates the documents (DocPSQ, or "
            "PSQ with translate 'auto' or 'documents')"
        )
    assert DocPSQ(source_lang="en").fit(Resources(index=index, reverse_table=reverse)).search({"q": "light"})


def test_a_table_from_the_documents_language_given_as_table_is_told_the_python_way_too(index):
    from clirkit.systems import PSQ
    from clirkit.translation import TranslationTable

    words = ["luz", "tinieblas", "aguas", "dios", "tierra", "cielos", "principio", "día", "noche", "mares"]
    reverse = TranslationTable.from_triples(words, [f"w{i}" for i in range(len(words))], [1.0] * len(words))
    with pytest.raises(ClirkitError) as err:
        PSQ().fit(Resources(index=index, table=reverse))
    assert "in Python: Resources(reverse_table=...) to DocPSQ or PSQ; on the command line: --translate documents" in (
        str(err.value)
    )


# ------------------------------------------------------------------ 13. the docs say what is true


def test_the_ngram_orders_said_are_the_ones_the_constraint_takes(capsys):
    from clirkit.boost.params import PairFeatures
    from clirkit.cli import main

    allowed = PairFeatures._parameter_constraints["ngram"][0]
    assert (allowed.left, allowed.right) == (1, 3)
    with pytest.raises(SystemExit):
        main(["boost-train", "--help"])
    assert "3 = unigrams to trigrams" in " ".join(capsys.readouterr().out.split())
    assert "or 3 (unigrams to trigrams)" in " ".join(BoostRanker.__doc__.split())


def test_scs_mse_targets_are_cosines_in_python_as_on_the_command_line():
    """(A re-check of round 8, N5: [0, 0.5, 5] ran in Python and experiment files; scs-train refuses it.)"""
    with pytest.raises(ClirkitError, match=r"finite numbers in \[-1, 1\]"):
        SCSModel.from_flat(loss="mse", mse_targets=[0, 0.5, 5]).check_params()
    SCSModel.from_flat(loss="mse", mse_targets=[-1, 0.5, 1]).check_params()


def test_a_mistyped_topics_path_is_said_missing_not_searched_as_a_query():
    """(A re-check of round 8, N6: Resources(topics={"train": "tr.tvs"}) became one query, "tr.tvs".)"""
    with pytest.raises(ClirkitError, match="nope/tr.tsv: no such file"):
        Resources(topics={"test": "nope/tr.tsv"})
    assert Resources(topics={"test": "light of the world"}).topics("test") == {"1": "light of the world"}


def test_run_scores_beyond_the_float_range_are_one_short_error():
    """(A re-check of round 8, N7: from_records raised OverflowError; from_dict printed all 401 digits.)"""
    from collections import namedtuple

    from clirkit.run import Run

    row = namedtuple("row", "query_id doc_id score")
    for make in (lambda: Run.from_records([row("1", "a", 10**400)]), lambda: Run.from_dict({"1": {"a": 10**400}})):
        with pytest.raises(ClirkitError, match=r"has score 1000.*\.\.\., not a finite number") as caught:
            make()
        assert len(str(caught.value)) < 160
