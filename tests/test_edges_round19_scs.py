"""Edge round 19, SCS: training queries that hold no term after analysis (none: an error before anything is written;
some: said), a model file whose header lost a recorded hyper-parameter, records two languages of a side, or holds
embeddings whose norms overflow, is corrupt, and the counts of the SCS messages in the singular for one. Through the
command line (``clirkit.cli.main``) and the library (``SCSModel``), on the six Spanish documents of the tester."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.npzio import HEADER_KEY, encode_header
from clirkit.paramgroups import flat_names
from clirkit.run import Qrels
from clirkit.scs import SCSModel
from clirkit.scs.params import Schedule, Shape

DOCS = {
    "d1": "el perro come carne",
    "d2": "el gato bebe leche",
    "d3": "la casa es grande",
    "d4": "el perro y el gato",
    "d5": "la leche es blanca",
    "d6": "carne y leche en la casa",
}
QUERIES = {
    "q1": "dog eats",
    "q2": "cat milk",
    "q3": "big house",
    "q4": "white milk",
    "q5": "dog cat",
    "q6": "meat house",
}
JUDGED = [("q1", "d1", 1), ("q1", "d4", 1), ("q2", "d2", 1), ("q2", "d5", 1), ("q3", "d3", 1), ("q4", "d5", 2)]
JUDGED += [("q5", "d4", 1), ("q6", "d6", 1)]
SMALL = ["--source-lang", "en", "--target-lang", "es", "--epochs", "1", "--dim", "8"]


def write_data(tmp_path: Path, queries=QUERIES, judged=JUDGED) -> list[str]:
    """scs-train's data options for ``queries`` and ``judged`` over :data:`DOCS`, written in ``tmp_path``."""
    (tmp_path / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in DOCS.items()))
    (tmp_path / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()))
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in judged))
    files = ("--queries", "queries.tsv", "--qrels", "qrels.txt", "--documents", "docs.tsv")
    return [x if x.startswith("--") else str(tmp_path / x) for x in files]


def qrels_of(judged) -> Qrels:
    """Qrels of ``(qid, docid, grade)`` triples."""
    return Qrels(*(list(column) for column in zip(*judged)))


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("clirkit: error:") == 1 and err.endswith("\n"), err
    return err.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory) -> Path:
    """A model trained by scs-train on the tester's data (analyzers en and es, dim 8)."""
    tmp_path = tmp_path_factory.mktemp("scs19")
    assert main(["scs-train", *write_data(tmp_path), *SMALL, "--quiet", "-o", str(tmp_path / "m.npz")]) == 0
    return tmp_path / "m.npz"


def rewritten(path: Path, out: Path, edit=None, **arrays) -> Path:
    """The model file ``path`` written at ``out`` with its header changed by ``edit(header)`` and ``arrays``."""
    with np.load(path, allow_pickle=False) as npz:
        data = {k: npz[k] for k in npz.files}
    header = json.loads(data.pop(HEADER_KEY).tobytes().decode("utf-8"))
    if edit is not None:
        edit(header)
    np.savez(out, **{HEADER_KEY: encode_header(header)}, **{**data, **arrays})
    return out


# -- finding 1: training queries with no term after analysis ---------------------------------------------------


def test_training_queries_all_stopwords_are_an_error_and_no_model_is_written(tmp_path, capsys):
    args = write_data(tmp_path, {"q1": "the of and"}, [("q1", "d1", 1)])
    out = tmp_path / "m.npz"
    assert main(["scs-train", *args, *SMALL, "--stopwords", "snowball", "-o", str(out)]) == 2
    line = one_error_line(capsys)  # (the command line may name the queries' file first)
    assert line.startswith("clirkit: error: ") and line.endswith(
        "no judged training query holds a term after analysis (empty, only stopwords, or no word segmented): SCS "
        "learns from the queries' words"
    )
    assert not out.exists()


def test_some_training_queries_without_a_term_are_said_and_quiet_silences_it(tmp_path, capsys):
    args = write_data(tmp_path, {"q1": "", "q2": "cat milk"}, [("q1", "d1", 1), ("q2", "d2", 1)])
    out = str(tmp_path / "m.npz")
    assert main(["scs-train", *args, *SMALL, "-o", out]) == 0
    assert (
        "scs: 1 of 2 judged training queries holds no term after analysis (empty, only stopwords, or no word "
        "segmented) and trains nothing; it is 'q1'\n"
    ) in capsys.readouterr().err
    assert main(["scs-train", *args, *SMALL, "--quiet", "-o", out]) == 0
    assert capsys.readouterr().err == ""


def test_two_training_queries_without_a_term_are_said_in_the_plural(capsys):
    qrels = qrels_of([("a", "d1", 1), ("b", "d2", 1), ("c", "d3", 1)])
    model = SCSModel(shape=Shape(dim=4), schedule=Schedule(epochs=1))
    model.prepare(["a", "b", "c"], [[], [], ["x"]], ["d1", "d2", "d3"], [["y"], ["y"], ["y"]], qrels, quiet=False)
    err = capsys.readouterr().err
    assert "scs: 2 of 3 judged training queries hold no term after analysis" in err
    assert "and train nothing; the first is 'a'\n" in err


def test_no_document_with_a_term_for_the_queries_that_hold_one_is_an_error():
    qrels = qrels_of([("a", "d1", 1)])
    model = SCSModel(shape=Shape(dim=4), schedule=Schedule(epochs=1))
    with pytest.raises(ClirkitError, match="no training query with a term after analysis has a judged or sampled"):
        model.fit_tokens(["a"], [["x"]], ["d1", "d2"], [[], []], qrels)


# -- finding 2: every hyper-parameter the file records is required ----------------------------------------------


@pytest.mark.parametrize("name", flat_names(SCSModel))
def test_a_model_lacking_a_recorded_hyper_parameter_is_corrupt(name, model_file, tmp_path):
    bad = rewritten(model_file, tmp_path / "bad.npz", lambda h: h["params"].pop(name))
    with pytest.raises(ClirkitError) as exc:
        SCSModel.load(bad)
    assert str(exc.value).startswith(f"{bad}: corrupt SCS model: header params.{name} is missing; train the model")


def test_a_model_lacking_eps_is_an_error_for_scs_score(model_file, tmp_path, capsys):
    bad = rewritten(model_file, tmp_path / "bad.npz", lambda h: h["params"].pop("eps"))
    args = write_data(tmp_path)
    assert main(["scs-score", str(bad), *args[:2], *args[4:], "-o", str(tmp_path / "run")]) == 2
    assert f"{bad}: corrupt SCS model: header params.eps is missing" in one_error_line(capsys)
    assert not (tmp_path / "run").exists()


# -- finding 3: an analyzer of another language than the params' -----------------------------------------------


@pytest.mark.parametrize(
    "analyzer, lang, said",
    [
        ("query_analyzer", "fr", 'header params.source_lang is "en" but query_analyzer.lang is "fr": the model '
         "records two source languages"),
        ("doc_analyzer", "en", 'header params.target_lang is "es" but doc_analyzer.lang is "en": the model '
         "records two target languages"),
    ],
)  # fmt: skip
def test_a_model_recording_two_languages_of_a_side_is_corrupt(analyzer, lang, said, model_file, tmp_path):
    bad = rewritten(model_file, tmp_path / "bad.npz", lambda h: h[analyzer].update(lang=lang))
    with pytest.raises(ClirkitError) as exc:
        SCSModel.load(bad)
    assert str(exc.value).startswith(f"{bad}: corrupt SCS model: {said}; train the model again")


def test_fitting_with_analyzers_of_other_languages_than_the_model_is_an_error_not_a_model_it_cannot_load():
    resources = Resources(
        topics={"train": QUERIES},
        qrels={"train": qrels_of(JUDGED)},
        documents=(list(DOCS), list(DOCS.values())),
        source_lang="fr",
        target_lang="es",
    )
    model = SCSModel(shape=Shape(dim=4), schedule=Schedule(epochs=1))
    with pytest.raises(ClirkitError, match=r"the query analyzer is of 'fr' but source_lang is 'en': give "):
        model.fit(resources)
    SCSModel(shape=Shape(dim=4), schedule=Schedule(epochs=1), source_lang="fr").fit(resources)


# -- finding 4: embeddings whose norms overflow -----------------------------------------------------------------


def test_a_model_of_embeddings_whose_norms_overflow_is_corrupt(model_file, tmp_path):
    with np.load(model_file, allow_pickle=False) as npz:
        shape = npz["doc_embeddings"].shape
    bad = rewritten(model_file, tmp_path / "big.npz", doc_embeddings=np.full(shape, 1e200))
    with pytest.raises(ClirkitError) as exc:
        SCSModel.load(bad)
    assert str(exc.value).startswith(
        f'{bad}: corrupt SCS model: doc embeddings row 0 (word "beb") is too large: its norm overflows float64'
    )
    fine = rewritten(model_file, tmp_path / "fine.npz", doc_embeddings=np.full(shape, 1e150))
    assert SCSModel.load(fine).doc_embeddings_[0, 0] == 1e150


def test_word_vectors_whose_norms_overflow_are_refused_so_training_writes_no_model_it_cannot_load(tmp_path, capsys):
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("dog " + " ".join(["0.5"] * 8) + "\ncat " + " ".join(["1e200"] * 8) + "\n")
    out = tmp_path / "m.npz"
    assert main(["scs-train", *write_data(tmp_path), *SMALL, "--query-vectors", str(vectors), "-o", str(out)]) == 2
    assert one_error_line(capsys).startswith(f"clirkit: error: {vectors}:2: the vector of 'cat' is too large")
    assert not out.exists()
    qrels = qrels_of(JUDGED)
    for value, said in ((1e200, "is too large"), (np.nan, "is not finite (it holds inf or NaN)")):
        model = SCSModel(shape=Shape(dim=2), schedule=Schedule(epochs=1))
        with pytest.raises(ClirkitError, match=re.escape(f"query word vectors: the vector of 'cat' {said}")):
            model.prepare(["q"], [["cat"]], ["d1"], [["x"]], qrels, query_vectors=(["cat"], [[value, 1.0]]))


# -- finding 5: counts of one in the singular -------------------------------------------------------------------


def test_the_scs_messages_say_a_count_of_one_in_the_singular(capsys):
    model = SCSModel(shape=Shape(dim=4), schedule=Schedule(epochs=1))
    qrels = qrels_of([("a", "d1", 1), ("a", "gone", 1)])
    model.prepare(["a"], [["x"]], ["d1", "d2"], [["y"], ["z"]], qrels, quiet=False)
    assert "scs: 1 judgment names a document not in the collection; ignored\n" in capsys.readouterr().err
    model.fit_tokens(["a"], [["x"]], ["d1", "d2"], [["y"], ["z"]], qrels)
    model.score_tokens(["a", "b"], [["x"], ["unknown"]], ["d1", "d2", "d3"], [["y"], ["z"], ["new"]], quiet=False)
    err = capsys.readouterr().err
    assert "scs: 1 query has no word known to the model; no results for it\n" in err
    assert "scs: 1 document has no word known to the model; left out\n" in err
    model.score_tokens(["a", "b", "c"], [["x"], [], []], ["d1", "d2", "d3", "d4"], [["y"], [], ["z"], []], quiet=False)
    err = capsys.readouterr().err
    assert "scs: 2 queries have no word known to the model; no results for them\n" in err
    assert "scs: 2 documents have no word known to the model; left out\n" in err
