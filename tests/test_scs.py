"""The SCS model: losses, hand-derived gradients, seeded training, scoring, model files (SPEC §7)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.run import Qrels, Run
from clirkit.scs import SCSModel, losses, read_word_vectors
from clirkit.scs.encoding import averaging_matrix, vocabulary_of
from clirkit.scs.optim import Adam
from clirkit.scs.params import Objective, Schedule, Shape, UnitSampling

# A real slice of nave-en-es: Spanish RV1909 verses and Nave-style English queries, pre-tokenized
# (lowercased, punctuation dropped) so these tests do not depend on the tokenizer.
VERSES = {
    "Gen.1.1": "en el principio crió dios los cielos y la tierra",
    "Gen.1.3": "y dijo dios sea la luz y fué la luz",
    "Gen.1.4": "y vió dios que la luz era buena y apartó dios la luz de las tinieblas",
    "Gen.1.5": "y llamó dios á la luz día y á las tinieblas llamó noche y fué la tarde y la mañana un día",
    "Exod.3.1": "y apacentando moisés las ovejas de jethro su suegro sacerdote de madián",
    "Exod.3.2": "y apareciósele el angel de jehová en una llama de fuego en medio de una zarza",
    "Exod.3.3": "entonces moisés dijo iré yo ahora y veré esta grande visión",
    "Exod.4.27": "y jehová dijo á aarón ve á recibir á moisés al desierto",
    "Exod.4.28": "entonces contó moisés á aarón todas las palabras de jehová",
    "Exod.4.29": "y fueron moisés y aarón y juntaron todos los ancianos de los hijos de israel",
    "John.3.16": "porque de tal manera amó dios al mundo que ha dado á su hijo unigénito",
}
QUERIES = {
    "aaron.1": "aaron meets moses in the wilderness",
    "light.1": "light created by god",
    "bush.1": "moses and the burning bush",
}
QRELS = Qrels(
    ["aaron.1", "aaron.1", "aaron.1", "light.1", "light.1", "light.1", "bush.1", "bush.1"],
    ["Exod.4.27", "Exod.4.28", "Exod.4.29", "Gen.1.3", "Gen.1.4", "Gen.1.5", "Exod.3.2", "Exod.3.3"],
    [2, 1, 1, 2, 2, 1, 2, 1],
)
QIDS = list(QUERIES)
QTOK = [QUERIES[q].split() for q in QIDS]
DIDS = list(VERSES)
DTOK = [VERSES[d].split() for d in DIDS]


def small_model(**params) -> SCSModel:
    base = dict(dim=6, init_scale=0.6, negatives=3, epochs=1, random_state=3)
    base.update(params)
    return SCSModel.from_flat(**base)


def dense_gradient(model, data):
    loss, grads = model.loss_and_gradient(data)
    out = {"query": np.zeros_like(model.query_embeddings_), "doc": np.zeros_like(model.doc_embeddings_)}
    for name, (rows, values) in grads.items():
        out[name][rows] += values
    return loss, out


def numeric_gradient(model, data, h=1e-6):
    out = {}
    for name, table in (("query", model.query_embeddings_), ("doc", model.doc_embeddings_)):
        grad = np.zeros_like(table)
        for idx in np.ndindex(table.shape):
            keep = table[idx]
            table[idx] = keep + h
            up = model.loss_and_gradient(data)[0]
            table[idx] = keep - h
            down = model.loss_and_gradient(data)[0]
            table[idx] = keep
            grad[idx] = (up - down) / (2 * h)
        out[name] = grad
    return out


# losses -----------------------------------------------------------------------------------------


def test_sosl_is_zero_inside_the_grade_segment_and_squared_distance_outside():
    th = (0.2, 0.7)  # segments: grade 0 [-1, 0.2], grade 1 [0.2, 0.7], grade 2 [0.7, 1]
    r = np.array([0.2, 0.2, 0.7, 0.7, 0.5, 0.9, 0.1, -0.5])
    y = np.array([0, 1, 1, 2, 0, 1, 2, 2])
    value, grad = losses.sosl(r, y, th)
    expected = [0.0, 0.0, 0.0, 0.0, (0.5 - 0.2) ** 2, (0.9 - 0.7) ** 2, (0.7 - 0.1) ** 2, (0.7 + 0.5) ** 2]
    np.testing.assert_allclose(value, expected, atol=1e-15)
    np.testing.assert_allclose(grad, [0, 0, 0, 0, 2 * 0.3, 2 * 0.2, -2 * 0.6, -2 * 1.2], atol=1e-15)


@pytest.mark.parametrize("grade, threshold", [(0, 0.2), (1, 0.2), (1, 0.7), (2, 0.7)])
def test_sosl_value_and_gradient_are_continuous_at_each_threshold(grade, threshold):
    for h in (1e-3, 1e-5, 1e-7):
        r = np.array([threshold - h, threshold, threshold + h])
        value, grad = losses.sosl(r, np.full(3, grade), (0.2, 0.7))
        assert value[1] == 0.0 and grad[1] == 0.0
        assert np.all(value <= h * h * (1 + 1e-9)) and np.all(np.abs(grad) <= 2 * h * (1 + 1e-9))
        # the derivative matches the finite difference of the loss around the threshold
        for x in r:
            up, _ = losses.sosl(np.array([x + 1e-9]), np.array([grade]), (0.2, 0.7))
            down, _ = losses.sosl(np.array([x - 1e-9]), np.array([grade]), (0.2, 0.7))
            _, g = losses.sosl(np.array([x]), np.array([grade]), (0.2, 0.7))
            assert g[0] == pytest.approx((up[0] - down[0]) / 2e-9, abs=1e-6)


def test_sosl_rejects_bad_thresholds_and_grades():
    with pytest.raises(ClirkitError, match="increase strictly"):
        losses.sosl(np.zeros(1), np.zeros(1, dtype=int), (0.7, 0.2))
    with pytest.raises(ClirkitError, match="grades 0..2"):
        losses.sosl(np.zeros(1), np.array([3]), (0.2, 0.7))


def test_pairwise_losses_match_their_formulas():
    pos, neg = np.array([0.5, 0.1, 0.3]), np.array([0.1, 0.5, 0.25])
    delta = neg - pos
    v, g = losses.pairwise("hinge", pos, neg, margin=0.1)
    np.testing.assert_allclose(v, np.maximum(0, 0.1 + delta))
    np.testing.assert_allclose(g, [0, 1, 1])
    v, g = losses.pairwise("logistic", pos, neg)
    np.testing.assert_allclose(v, np.log(1 + np.exp(delta)))
    np.testing.assert_allclose(g, 1 / (1 + np.exp(-delta)))
    v, g = losses.pairwise("exp", pos, neg)
    np.testing.assert_allclose(v, np.exp(delta))


def test_mse_default_targets_are_the_middle_of_each_sosl_segment():
    np.testing.assert_allclose(losses.segment_midpoints((0.2, 0.7)), [-0.4, 0.45, 0.85])


# encoding ---------------------------------------------------------------------------------------


def test_averaging_matrix_averages_real_tokens_only():
    vocab = vocabulary_of([["luz", "dios"], ["tierra"]])
    A = averaging_matrix([["luz", "luz", "dios", "unknown"], [], ["unknown"]], vocab)
    assert vocab.tolist() == ["dios", "luz", "tierra"]
    np.testing.assert_allclose(A.toarray(), [[1 / 3, 2 / 3, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(TypeError, match="list of tokens"):
        averaging_matrix(["luz dios"], vocab)


def test_word_vector_file_is_read_with_or_without_word2vec_header(tmp_path):
    path = tmp_path / "vec.txt"
    path.write_text("2 3\nluz 0.1 0.2 0.3\ndios -1 0 1\n", encoding="utf-8")
    words, vectors = read_word_vectors(path, 3)
    assert words.tolist() == ["luz", "dios"]
    np.testing.assert_allclose(vectors, [[0.1, 0.2, 0.3], [-1, 0, 1]])
    path.write_text("luz 0.1 0.2\n", encoding="utf-8")
    with pytest.raises(ClirkitError, match=r"vec.txt:1: expected a word and 3 numbers"):
        read_word_vectors(path, 3)


@pytest.mark.parametrize(
    "text, where, problem",
    [
        (
            "luz 0.1 0.2\n",
            ":1",
            "expected a word and 3 numbers, got 3 fields (the model's --dim is 3); give vectors of "
            "--dim numbers, or set --dim to the vectors' size (word v1 ... v_dim, separated by single "
            "spaces)",
        ),
        (
            " 0.1 0.2 0.3\n",
            ":1",
            "empty word (the line starts with a space); remove the space, or give the line its word",
        ),
        (
            "luz\x00 0.1 0.2 0.3\n",
            ":1",
            "word 'luz\\x00' contains a NUL character; remove the NUL bytes (is it a binary file?)",
        ),
        (
            "l" * 1001 + " 0.1 0.2 0.3\n",
            ":1",
            "word of 1,001 characters (at most 1,000); check the line: a word is short (is a line break missing?)",
        ),
        ("luz 0.1 x 0.3\n", ":1", "vector component 'x' is not a number; give the word, then 3 numbers such as 0.25"),
        (
            "luz 0.1 0.2 0.3\nluz 1 2 3\n",
            ":2",
            "word 'luz' already given on line 1; give each word one vector (remove one of the two lines)",
        ),
        (
            "luz 0.1 nan 0.3\n",
            ":1",
            "the vector of 'luz' holds inf or nan; give finite numbers (make or export the vectors again)",
        ),
        (
            "2 3\n",
            "",
            "no word vectors in the file: check the path (word2vec or GloVe text: a word and its 3 numbers a line)",
        ),
    ],
)
def test_a_bad_word_vector_file_says_where_what_and_what_to_do(tmp_path, text, where, problem):
    # said no fix before (the fields, the empty word, the NUL, the length, the repeat, the value, an empty file)
    path = tmp_path / "vec.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClirkitError) as err:
        read_word_vectors(path, 3)
    assert str(err.value) == f"{path}{where}: {problem}"


# gradients --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "loss, eps",
    [
        ("sosl", 1.0),
        ("sosl", 0.0),
        ("mse", 1.0),
        ("mse", 0.3),
        ("hinge", 1.0),
        ("logistic", 1.0),
        ("logistic", 0.0),
        ("exp", 0.5),
    ],
)
def test_hand_derived_gradient_matches_finite_differences_for_every_parameter(loss, eps):
    pairwise = {"pair_weight": "grade", **({"margin": 0.05} if loss == "hinge" else {})}  # what the loss reads
    model = small_model(loss=loss, eps=eps, dim=3, negatives=2, **(pairwise if loss in losses.PAIRWISE else {}))
    data = model.prepare(QIDS, QTOK, DIDS, DTOK, QRELS)
    if loss == "hinge":  # stay away from the kink, where the derivative is not defined
        q = np.concatenate([data.query, data.query])
        d = np.concatenate([data.pos, data.neg])
        U, _ = model.encode_queries([QTOK[i] for i in q])
        V, _ = model.encode_documents([DTOK[i] for i in d])
        r = np.einsum("ij,ij->i", U, V)
        assert np.all(np.abs(0.05 + r[len(data) :] - r[: len(data)]) > 1e-4)
    loss_value, analytic = dense_gradient(model, data)
    assert loss_value > 0
    numeric = numeric_gradient(model, data)
    for name in ("query", "doc"):
        a, n = analytic[name], numeric[name]
        assert np.linalg.norm(a) > 0
        rel = np.linalg.norm(a - n) / (np.linalg.norm(a) + np.linalg.norm(n))
        assert rel < 1e-5, (name, rel)


def test_gradient_is_bounded_by_eps_but_not_without_it():
    """Smooth cosine: |dr/df| <= 2/eps (paper, Lemma 2 proof); plain cosine blows up near 0."""
    model = small_model(loss="mse", eps=0.5, init_scale=1e-4, mse_targets=(1.0, 1.0, 1.0))
    data = model.prepare(QIDS, QTOK, DIDS, DTOK, QRELS)
    _, smooth = dense_gradient(model, data)
    model.shape.eps = 0.0
    _, plain = dense_gradient(model, data)
    assert np.abs(plain["query"]).max() > 100 * np.abs(smooth["query"]).max()


# training ---------------------------------------------------------------------------------------


def test_seeded_training_is_reproducible_byte_for_byte(tmp_path):
    digests = []
    for i in range(2):
        model = small_model(epochs=3, batch_size=4).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
        path = tmp_path / f"m{i}.npz"
        model.save(path)
        digests.append(hashlib.sha256(path.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    other = small_model(epochs=3, batch_size=4, random_state=4).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    other.save(tmp_path / "other.npz")
    assert hashlib.sha256((tmp_path / "other.npz").read_bytes()).hexdigest() != digests[0]


def test_negatives_are_distinct_unjudged_documents():
    model = small_model(negatives=4)
    data = model.prepare(QIDS, QTOK, DIDS, DTOK, QRELS)
    judged = set(zip(QRELS.qids.tolist(), QRELS.docids.tolist()))
    for qi, qid in enumerate(QIDS):
        neg = [DIDS[d] for d, g, q in zip(data.doc, data.grade, data.query) if q == qi and g == 0]
        assert len(neg) == 4 == len(set(neg))
        assert not any((qid, d) in judged for d in neg)


@pytest.mark.parametrize("loss", ["sosl", "hinge"])
def test_training_lowers_the_loss_and_ranks_judged_verses_first(loss):
    model = SCSModel(
        shape=Shape(dim=16),
        objective=Objective(loss=loss),
        sampling=UnitSampling(negatives=5),
        schedule=Schedule(epochs=60, batch_size=8, lr=0.05),
        random_state=1,
    )
    model.fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    assert model.history_[-1]["loss"] < 0.2 * model.history_[0]["loss"]
    run = model.score_tokens(QIDS, QTOK, DIDS, DTOK, depth=3)
    for qid in QIDS:
        top = run.for_query(qid)[0][0]
        assert QRELS.to_dict()[qid].get(top, 0) >= 1


def test_adam_dense_and_lazy_agree_on_the_first_step_and_follow_the_formula():
    for lazy in (False, True):
        p = {"w": np.ones((3, 2))}
        Adam(lr=0.1, lazy=lazy).step(p, {"w": (np.array([1]), np.array([[2.0, -0.5]]))})
        # first step: m_hat = g, v_hat = g^2, update = lr * g / (|g| + eps)
        np.testing.assert_allclose(p["w"], [[1, 1], [0.9, 1.1], [1, 1]], rtol=1e-7)


# scoring and files ------------------------------------------------------------------------------


def test_search_scores_are_the_smooth_cosine_and_rerank_rescores_the_same_pairs():
    model = small_model(epochs=2, eps=0.7).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    full = model.similarity(QTOK, DTOK)
    Fq = np.tanh(averaging_matrix(QTOK, model.query_vocab_) @ model.query_embeddings_)
    Fd = np.tanh(averaging_matrix(DTOK, model.doc_vocab_) @ model.doc_embeddings_)
    by_hand = (Fq @ Fd.T) / np.outer(np.linalg.norm(Fq, axis=1) + 0.7, np.linalg.norm(Fd, axis=1) + 0.7)
    np.testing.assert_allclose(full, by_hand, rtol=1e-12)
    run = model.score_tokens(QIDS, QTOK, DIDS, DTOK, depth=4)
    assert len(run) == 12
    for qi, qid in enumerate(QIDS):
        docs, scores = run.for_query(qid)
        np.testing.assert_allclose(scores, np.sort(by_hand[qi])[::-1][:4], rtol=1e-12)
    shuffled = Run(run.qids, run.docids, np.zeros(len(run)), tag="x")
    again = model.score_tokens(QIDS, QTOK, DIDS, DTOK, rerank=shuffled)
    np.testing.assert_allclose(np.sort(again.scores), np.sort(run.scores))


def test_queries_without_known_words_get_no_results():
    model = small_model(epochs=1).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    run = model.score_tokens(["q"], [["zzz", "qqq"]], DIDS, DTOK)
    assert len(run) == 0


def test_save_load_round_trip_gives_the_same_scores_and_bad_files_fail_clearly(tmp_path):
    model = small_model(epochs=2).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    path = tmp_path / "scs.npz"
    model.save(path)
    loaded = SCSModel.load(path)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.similarity(QTOK, DTOK), model.similarity(QTOK, DTOK))
    assert loaded.history_ == model.history_
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ClirkitError, match="junk.npz: not a clirkit scs-model file"):
        SCSModel.load(tmp_path / "junk.npz")
    from clirkit.npzio import save_npz

    save_npz(
        tmp_path / "bad.npz",
        "scs-model",
        1,
        {"params": model.flat_params()},
        {
            "query_vocab": model.query_vocab_,
            "doc_vocab": model.doc_vocab_,
            "query_embeddings": model.query_embeddings_[:-1],
            "doc_embeddings": model.doc_embeddings_,
        },
    )
    with pytest.raises(ClirkitError, match="bad.npz: corrupt SCS model: query embeddings"):
        SCSModel.load(tmp_path / "bad.npz")


def test_grades_beyond_the_thresholds_are_a_user_error():
    bad = Qrels(["aaron.1"], ["Exod.4.27"], [3])
    with pytest.raises(ClirkitError, match="grade 3 but the model has 3 grades"):
        small_model().prepare(QIDS, QTOK, DIDS, DTOK, bad)


# command line -----------------------------------------------------------------------------------


def test_scs_train_and_score_commands_write_a_model_and_a_run(tmp_path, capsys):
    from clirkit.cli import main
    from clirkit.formats import read_run

    (tmp_path / "q.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()), encoding="utf-8")
    (tmp_path / "d.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in VERSES.items()), encoding="utf-8")
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in zip(QRELS.qids, QRELS.docids, QRELS.rels)), encoding="utf-8"
    )
    files = ["--queries", str(tmp_path / "q.tsv"), "--documents", str(tmp_path / "d.tsv")]
    model = str(tmp_path / "m.npz")
    assert (
        main(
            [
                "scs-train",
                *files,
                "--qrels",
                str(tmp_path / "qrels"),
                "-o",
                model,
                "--dim",
                "8",
                "--epochs",
                "2",
                "--negatives",
                "3",
                "-q",
            ]
        )
        == 0
    )
    out = tmp_path / "scs.run"
    assert main(["scs-score", model, *files, "-o", str(out), "--depth", "5", "-q"]) == 0
    run = read_run(out)
    assert run.query_ids == QIDS and len(run) == 15 and run.tag == "SCS"
    rerank = tmp_path / "re.run"
    assert main(["scs-score", model, *files, "--rerank", str(out), "-o", str(rerank), "-q"]) == 0
    np.testing.assert_allclose(read_run(rerank).scores, run.scores, rtol=1e-12)
    assert main(["scs-train", *files, "-o", model]) == 2
    assert "--qrels" in capsys.readouterr().err


# tampered files: every header value and array is checked before use ---------------------------------


@pytest.fixture(scope="module")
def trained():
    """A two-epoch model with the analyzers' settings of a model trained on texts."""
    from clirkit.analysis import Analyzer

    model = small_model(epochs=2).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    model.query_analyzer_, model.doc_analyzer_ = Analyzer("en").to_dict(), Analyzer("es").to_dict()
    return model


@pytest.fixture
def saved_scs(trained, tmp_path):
    trained.save(tmp_path / "scs.npz")
    return tmp_path / "scs.npz"


def _set(arr, i, value, dtype=None):
    out = arr.astype(dtype or arr.dtype)
    out[i] = value
    return out


# (header changes, array changes as functions of the saved arrays, the problem named)
SCS_TAMPERING = {
    "eps a string": ({"params.eps": "x"}, {}, 'header params.eps must be a finite number >= 0, got "x"'),
    "eps NaN": ({"params.eps": float("nan")}, {}, "header params.eps must be a finite number >= 0, got NaN"),
    "eps infinite": ({"params.eps": float("inf")}, {}, "header params.eps must be a finite number >= 0, got Infinity"),
    "eps negative": ({"params.eps": -1}, {}, "header params.eps must be a finite number >= 0, got -1"),
    "dim zero": ({"params.dim": 0}, {}, "header params.dim must be an integer >= 1, got 0"),
    "dim off the embeddings": ({"params.dim": 5}, {}, "query embeddings must have shape (13, 5), got (13, 6)"),
    "lr NaN": ({"params.lr": float("nan")}, {}, "header params: The 'lr' parameter of SCSModel must be"),
    "loss unknown": ({"params.loss": "zzz"}, {}, "header params: The 'loss' parameter of SCSModel must be"),
    "thresholds decreasing": (
        {"params.thresholds": [0.7, 0.2]},
        {},
        "header params: SOSL thresholds must increase strictly inside (-1, 1), got 0.7 0.2",
    ),
    "thresholds of strings": (
        {"params.thresholds": ["a"]},
        {},
        'header params.thresholds must be a list of finite numbers, got ["a"]',
    ),
    "a NaN threshold": (
        {"params.thresholds": [float("nan")]},
        {},
        "header params.thresholds must be a list of finite numbers, got [NaN]",
    ),
    "MSE targets too few": ({"params.mse_targets": [1]}, {}, "header params: give one MSE target per grade (3), got 1"),
    "an unknown hyper-parameter": ({"params.bogus": 1}, {}, 'header params has an unknown hyper-parameter "bogus"'),
    "both spellings of a language": (
        {"params.query_lang": "en"},
        {},
        "header params has both query_lang and source_lang",
    ),
    "params not an object": ({"params": "x"}, {}, 'header params must be an object, got "x"'),
    "query analyzer incomplete": (
        {"query_analyzer": {"lang": "en"}},
        {},
        "header query_analyzer: missing lowercase, strip_punctuation",
    ),
    "doc analyzer a number": ({"doc_analyzer": 4}, {}, "header doc_analyzer must be an object or null, got 4"),
    "doc analyzer lowercase null": (
        {"doc_analyzer.lowercase": None},
        {},
        "header doc_analyzer: lowercase must be true or false, got None",
    ),
    "history an object": ({"history": {"a": 1}}, {}, 'header history must be a list of objects, got {"a": 1}'),
    "history without losses": ({"history": [{"epoch": 1}]}, {}, "header history[0].loss is missing"),
    "training stats a list": ({"training_stats": []}, {}, "header training_stats must be an object, got []"),
    "a NaN embedding": (
        {},
        {"doc_embeddings": lambda a: _set(a["doc_embeddings"], (2, 3), np.nan)},
        "doc embeddings has NaN at (2, 3)",
    ),
    "an infinite embedding": (
        {},
        {"query_embeddings": lambda a: _set(a["query_embeddings"], (0, 0), -np.inf)},
        "query embeddings has an infinite value at (0, 0)",
    ),
    "float32 embeddings": (  # another model than the one written (clirkit writes float64): scores in other digits
        {},
        {"query_embeddings": lambda a: a["query_embeddings"].astype(np.float32)},
        "query embeddings must hold float64, got float32",
    ),
    "float16 embeddings": (
        {},
        {"doc_embeddings": lambda a: a["doc_embeddings"].astype(np.float16)},
        "doc embeddings must hold float64, got float16",
    ),
    "string embeddings": (
        {},
        {"query_embeddings": lambda a: a["query_embeddings"].astype(str)},
        "query embeddings must hold floats, got <U",
    ),
    "a word too few": (
        {},
        {"doc_vocab": lambda a: a["doc_vocab"][:-1]},
        "doc embeddings must have shape (75, 6), got (76, 6)",
    ),
    "vocabulary reversed": (
        {},
        {"query_vocab": lambda a: a["query_vocab"][::-1].copy()},
        "query_vocab is not strictly increasing at 1 ('wilderness' then 'the')",
    ),
    "a repeated word": (
        {},
        {"doc_vocab": lambda a: _set(a["doc_vocab"], 1, a["doc_vocab"][0])},
        "doc_vocab is not strictly increasing at 1",
    ),
    "integer vocabulary": (
        {},
        {"doc_vocab": lambda a: np.arange(len(a["doc_vocab"]))},
        "doc_vocab must hold strings, got int64",
    ),
}


@pytest.mark.parametrize("case", list(SCS_TAMPERING))
def test_a_tampered_scs_model_is_a_one_line_error_naming_the_file_and_the_problem(tamper, saved_scs, tmp_path, case):
    import re

    header, changes, problem = SCS_TAMPERING[case]
    with np.load(saved_scs, allow_pickle=False) as npz:
        arrays = {name: change(npz) for name, change in changes.items()}
    bad = tamper(saved_scs, tmp_path / "bad.npz", header, **arrays)
    with pytest.raises(ClirkitError) as info:
        SCSModel.load(bad)
    assert re.fullmatch(re.escape(f"{bad}: corrupt SCS model: {problem}") + ".*", str(info.value))
    assert str(info.value).endswith("; train the model again with `clirkit scs-train`")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "name, mutation",
    [(name, m) for name in ("query_vocab", "doc_vocab") for m in ("reverse", "first repeated", "drop last", "empty")]
    + [
        (name, m)
        for name in ("query_embeddings", "doc_embeddings")
        for m in ("drop last", "as str", "empty", "1-d", "first to NaN", "as int")
    ],
)
def test_a_mutated_scs_array_loads_as_the_same_model_or_is_an_error_never_different_scores(
    tamper, saved_scs, tmp_path, name, mutation
):
    """Mutations that break what the writer guarantees (sorted vocabularies, one finite row per word);
    an embedding value changed is another model, not a corrupt one."""
    with np.load(saved_scs, allow_pickle=False) as npz:
        arr = npz[name]
    changed = {
        "reverse": lambda: arr[::-1].copy(),
        "first repeated": lambda: _set(arr, 1, arr[0]),
        "drop last": lambda: arr[:-1],
        "as str": lambda: arr.astype(str),
        "empty": lambda: arr[:0],
        "1-d": lambda: arr.reshape(-1),
        "first to NaN": lambda: _set(arr, (0, 0), np.nan),
        "as int": lambda: arr.astype(np.int64),
    }[mutation]()
    bad = tamper(saved_scs, tmp_path / "bad.npz", **{name: changed})
    expected = SCSModel.load(saved_scs).similarity(QTOK, DTOK)
    try:
        loaded = SCSModel.load(bad)
    except ClirkitError as exc:
        assert str(exc).startswith(f"{bad}: corrupt SCS model: ") and "\n" not in str(exc)
    else:
        np.testing.assert_array_equal(loaded.similarity(QTOK, DTOK), expected)


def test_the_largest_embeddings_a_model_holds_score_finite_numbers_and_larger_ones_are_refused(
    tamper, saved_scs, tmp_path
):
    """A text's encoding is tanh of a mean of its words' rows (weights >= 0 summing to 1, so a sum can at worst
    overflow to one infinity, never to inf - inf), in [-1, 1] before it is normalized; every score is a product of
    two such vectors. Rows whose norm overflows float64 (cells of about 1e154 and more), which saturate every tanh
    their words enter, are refused when the model is read."""
    with np.load(saved_scs, allow_pickle=False) as npz:
        E, D = npz["query_embeddings"], npz["doc_embeddings"]
    for big in (1e153, np.finfo(np.float64).max):
        signs = np.where(np.arange(E.size).reshape(E.shape) % 2, -big, big)
        bad = tamper(saved_scs, tmp_path / "big.npz", query_embeddings=signs, doc_embeddings=np.full(D.shape, big))
        if big < 1e154:
            with np.errstate(all="raise"):
                run = SCSModel.load(bad).score_tokens(QIDS, QTOK, DIDS, DTOK)
            assert len(run) and np.all(np.isfinite(run.scores))
        else:
            with pytest.raises(
                ClirkitError, match=r"query embeddings row 0 \(word .*\) is too large: its norm overflows"
            ):
                SCSModel.load(bad)


def test_a_model_stored_big_endian_or_with_version_1_names_loads(tamper, trained, saved_scs, tmp_path):
    with np.load(saved_scs, allow_pickle=False) as npz:
        E = npz["query_embeddings"]
    params = trained.flat_params()
    old_names = {
        "params": {
            **{k: v for k, v in params.items() if k not in ("source_lang", "target_lang")},
            "thresholds": list(params["thresholds"]),
            "query_lang": "en",
            "doc_lang": "es",
        }
    }
    loaded = SCSModel.load(tamper(saved_scs, tmp_path / "be.npz", old_names, query_embeddings=E.astype(">f8")))
    assert loaded.get_params() == trained.get_params() and loaded.query_embeddings_.dtype.isnative
    np.testing.assert_array_equal(loaded.similarity(QTOK, DTOK), trained.similarity(QTOK, DTOK))
    assert loaded.query_analyzer_ == trained.query_analyzer_ and loaded.history_ == trained.history_


def test_training_that_diverges_is_an_error_not_a_nan_model():
    from clirkit.errors import ClirkitError

    model = small_model(epochs=1, batch_size=4, lr=10.0, init_scale=10.0)
    try:
        with np.errstate(all="ignore"):
            model.fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    except ClirkitError as exc:
        assert "SCS training diverged" in str(exc)
    else:  # a large step that happens to stay finite must leave finite embeddings
        assert np.all(np.isfinite(model.query_embeddings_)) and np.all(np.isfinite(model.doc_embeddings_))


# compiled steps (numba) against numpy ---------------------------------------------------------------


def _numpy_only(monkeypatch):
    import clirkit.scs.compiled as compiled

    monkeypatch.setattr(compiled.COMPILED, "off", True)


@pytest.mark.parametrize("lazy", [True, False])
def test_adam_steps_compiled_and_in_numpy_give_the_same_bits(lazy, monkeypatch):
    pytest.importorskip("numba")
    rng = np.random.default_rng(0)
    tables = {name: rng.normal(size=(30, 5)) for name in ("query", "doc")}
    steps = [
        {
            name: (np.sort(rng.choice(30, 7, replace=False)), rng.normal(size=(7, 5)) * 10 ** rng.uniform(-3, 1))
            for name in tables
        }
        for _ in range(50)
    ]
    compiled_tables = {k: v.copy() for k, v in tables.items()}
    adam = Adam(lr=0.05, lazy=lazy)
    for grads in steps:
        adam.step(compiled_tables, grads)
    _numpy_only(monkeypatch)
    adam = Adam(lr=0.05, lazy=lazy)
    for grads in steps:
        adam.step(tables, grads)
    for name in tables:
        np.testing.assert_array_equal(compiled_tables[name], tables[name])


@pytest.mark.parametrize("loss, lazy_adam", [("sosl", True), ("hinge", True), ("mse", False)])
def test_training_compiled_and_in_numpy_gives_the_same_model_bit_for_bit(loss, lazy_adam, monkeypatch):
    """Adam, the batch's averaging rows and their products, and the gradient's row sums: compiled where numba is
    installed, numpy and scipy otherwise, the same floating-point operations in the same order."""
    pytest.importorskip("numba")
    params = dict(epochs=4, batch_size=5, loss=loss, lazy_adam=lazy_adam)
    fast = small_model(**params).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    _numpy_only(monkeypatch)
    slow = small_model(**params).fit_tokens(QIDS, QTOK, DIDS, DTOK, QRELS)
    np.testing.assert_array_equal(fast.query_embeddings_, slow.query_embeddings_)
    np.testing.assert_array_equal(fast.doc_embeddings_, slow.doc_embeddings_)
    assert fast.history_ == slow.history_


def test_gradient_row_sums_add_in_order_as_add_at_does():
    from clirkit.scs.encoding import add_rows

    rng = np.random.default_rng(1)
    index = rng.integers(0, 4, size=40)  # each row summed many times: the order shows in the last bits
    values = rng.normal(size=(40, 3)) * 10.0 ** rng.integers(-8, 8, size=(40, 1))
    expected = np.zeros((4, 3))
    np.add.at(expected, index, values)
    np.testing.assert_array_equal(add_rows(np.zeros((4, 3)), index, values), expected)
