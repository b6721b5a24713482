import re
from collections import Counter

import numpy as np
import pytest

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError
from clirkit.npzio import HEADER_KEY
from clirkit.retrieval.bm25 import BM25
from clirkit.retrieval.index import Index, drop_terms, most_frequent_terms
from clirkit.retrieval.query import StructuredQueries


@pytest.fixture
def index(verses_es):
    """The verses indexed as whole words (stemmer=None): the tests below name terms ("aguas", "tinieblas") and
    pin the file's shapes (56 terms, 121 postings); indexing counts the analyzer's terms, whatever they are."""
    return Index.build(verses_es.items(), Analyzer("es", stemmer=None))


def test_counts_match_a_direct_count_of_the_tokens(index, verses_es):
    analyzer = Analyzer("es", stemmer=None)
    for j, docid in enumerate(index.docids):
        tokens = analyzer.tokenize(verses_es[docid])
        column = index.tf[:, j].toarray().ravel()
        assert {index.terms[i]: column[i] for i in np.flatnonzero(column)} == {t: tokens.count(t) for t in set(tokens)}
        assert index.doc_lengths[j] == len(tokens)


def test_df_counts_documents_containing_the_term(index, verses_es):
    tokenized = [set(Analyzer("es", stemmer=None).tokenize(t)) for t in verses_es.values()]
    for term in ["luz", "aguas", "verbo", "dios"]:
        assert index.df[index.vocabulary[term]] == sum(term in toks for toks in tokenized)


def test_documents_and_terms_are_sorted_whatever_the_input_order(verses_es):
    forward = Index.build(verses_es.items(), Analyzer("es"))
    backward = Index.build(reversed(list(verses_es.items())), Analyzer("es"))
    assert list(forward.docids) == sorted(verses_es)
    assert list(forward.terms) == sorted(forward.terms)
    assert (forward.tf != backward.tf).nnz == 0 and list(forward.docids) == list(backward.docids)


@pytest.mark.parametrize("stemmer", [None, "snowball"])
def test_save_load_round_trip_is_exact(verses_es, tmp_path, stemmer):
    index = Index.build(verses_es.items(), Analyzer("es", stemmer=stemmer))
    path = tmp_path / "ix.npz"
    index.save(path)
    loaded = Index.load(path)
    assert list(loaded.docids) == list(index.docids) and list(loaded.terms) == list(index.terms)
    assert (loaded.tf != index.tf).nnz == 0
    assert np.array_equal(loaded.doc_lengths, index.doc_lengths)
    assert loaded.analyzer == index.analyzer


def _mapped(array) -> bool:
    """Whether ``array`` views a memory map (directly or through its bases), i.e. was not copied into RAM."""
    import mmap

    while array is not None:
        if isinstance(array, (np.memmap, mmap.mmap)):
            return True
        array = getattr(array, "base", None)
    return False


def test_a_memory_mapped_index_is_the_same_index_and_ranks_the_same(index, tmp_path):
    path = tmp_path / "ix.npz"
    index.save(path)
    mapped = Index.load(path, mmap=True)
    assert all(_mapped(a) for a in (mapped.docids, mapped.tf.data, mapped.tf.indices, mapped.doc_lengths))
    assert list(mapped.docids) == list(index.docids) and list(mapped.terms) == list(index.terms)
    assert (mapped.tf != index.tf).nnz == 0 and np.array_equal(mapped.doc_lengths, index.doc_lengths)
    queries = StructuredQueries.from_tokens(["q1", "q2"], [["dios", "tierra"], ["luz"]], index.vocabulary)
    a, b = BM25(index).search(queries, depth=50), BM25(mapped).search(queries, depth=50)
    assert a.docids.tolist() == b.docids.tolist() and np.array_equal(a.scores, b.scores)


def test_a_tampered_memory_mapped_index_fails_clearly(index, tmp_path):
    path = tmp_path / "ix.npz"
    index.save(path)
    data = bytearray(path.read_bytes())
    at = data.index(np.asarray(index.doc_lengths).tobytes()[:16])  # the doc_lengths member's first values
    data[at : at + 8] = np.float64(np.nan).tobytes()
    path.write_bytes(bytes(data))
    with pytest.raises(ClirkitError, match="doc_lengths has NaN"):
        Index.load(path, mmap=True)


def test_a_memory_mapped_open_defers_the_postings_checks_to_the_first_search_of_each_term(index, tmp_path):
    path = tmp_path / "ix.npz"
    index.save(path)
    mapped = Index.load(path, mmap=True)
    assert mapped.lazy and not Index.load(path).lazy and mapped._unchecked.all()
    queries = StructuredQueries.from_tokens(["q1"], [["dios", "luz"]], index.vocabulary)
    BM25(mapped).search(queries)
    checked = np.flatnonzero(~mapped._unchecked)
    assert checked.tolist() == sorted([index.vocabulary["dios"], index.vocabulary["luz"]])


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda a: np.where(np.arange(len(a)) == 3, 0, a), "tf_data of row .* below the minimum 1"),
        (lambda a: np.where(np.arange(len(a)) == 3, 10**6, a), "tf_indices of row .* outside"),
        (lambda a: a[::-1].copy(), "tf_indices of row .* not strictly increasing"),
    ],
)
def test_a_memory_mapped_index_with_tampered_postings_fails_at_the_first_search_that_reads_them(
    index, tmp_path, tamper, change, message
):
    path = tmp_path / "ix.npz"
    index.save(path)
    name = "tf_indices" if "indices" in message else "tf_data"
    with np.load(path) as npz:
        tampered = change(npz[name]).astype(np.int32)
    out = tamper(path, tmp_path / "bad.npz", **{name: tampered})
    with pytest.raises(ClirkitError, match="corrupt index"):
        Index.load(out)  # the full check at a plain open
    mapped = Index.load(out, mmap=True)  # the open does not read the postings
    every_term = StructuredQueries.from_tokens(["q"], [list(index.terms)], index.vocabulary)
    with pytest.raises(ClirkitError, match=f"bad.npz: corrupt index: {message}"):
        BM25(mapped).search(every_term)


def test_dt_and_psq_over_a_memory_mapped_index_give_the_same_runs(index, tmp_path):
    from clirkit.psq import psq_queries
    from clirkit.translation import TranslationTable

    path = tmp_path / "ix.npz"
    index.save(path)
    mapped = Index.load(path, mmap=True)
    table = TranslationTable.from_triples(
        ["light", "light", "god", "earth", "earth"], ["luz", "día", "dios", "tierra", "la"], [0.7, 0.3, 1.0, 0.6, 0.4]
    )
    tokens = [["light", "god"], ["earth", "light"], ["god"]]
    for mode in ("psq", "pirkola"):
        queries = psq_queries(["a", "b", "c"], tokens, table, index.vocabulary, mode=mode)
        a, b = BM25(index).search(queries), BM25(mapped).search(queries)
        assert len(a) and a.docids.tolist() == b.docids.tolist() and np.array_equal(a.scores, b.scores)


def test_saving_twice_gives_identical_bytes(index, tmp_path):
    index.save(tmp_path / "a.npz")
    index.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_loading_a_foreign_file_fails_clearly(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.arange(3))
    with pytest.raises(ClirkitError, match="not a clirkit index file"):
        Index.load(path)


def test_loading_a_corrupt_file_fails_clearly(index, tmp_path):
    path = tmp_path / "ix.npz"
    index.save(path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ClirkitError, match="ix.npz"):
        Index.load(path)


def test_duplicate_docids_are_rejected_saying_what_to_do():
    with pytest.raises(ClirkitError) as err:
        Index.build([("Gen.1.1", "luz"), ("Gen.1.1", "aguas")], Analyzer("es"))
    assert str(err.value) == (
        "document id 'Gen.1.1' appears more than once (documents 1 and 2 in input order): give "
        "each document its own id, or remove the repeated document"
    )


def test_no_documents_to_index_says_what_to_do():
    with pytest.raises(ClirkitError) as err:
        Index.build([], Analyzer("es"))
    assert str(err.value) == "no documents to index: give at least one document"


def test_empty_collection_is_rejected():
    with pytest.raises(ClirkitError, match="no documents"):
        Index.build([], Analyzer("es"))


def test_whole_number_docids_are_indexed_as_str_sorted_as_str_and_the_file_loads(tmp_path):
    index = Index.build([(10, "luz"), (np.int64(9), "luz aguas"), (100, "aguas")], Analyzer("es"))
    assert index.docids.tolist() == ["10", "100", "9"] and index.docids.dtype.kind == "U"
    index.save(tmp_path / "ix.npz")
    assert Index.load(tmp_path / "ix.npz").docids.tolist() == ["10", "100", "9"]
    assert Index.from_tokens([2, 1], [["luz"], ["aguas"]]).docids.tolist() == ["1", "2"]


@pytest.mark.parametrize(
    "documents, says",
    [
        ([("Gen.1.1", "luz"), (1.5, "aguas")], "document 2 (in input order) has the id 1.5, a float: give each"),
        ([(None, "luz")], "document 1 (in input order) has no id (None): give each document a str id"),
    ],
)
def test_a_document_id_that_is_no_str_nor_whole_number_is_named_in_a_one_line_error(documents, says):
    _refused_by_build(documents, says)


@pytest.mark.parametrize(
    "documents, says",
    [
        ([("Gen.1.1", None)], "document 'Gen.1.1' (document 1 in input order): its text is a NoneType, not a str"),
        (
            [(1, "Gen.1.1", "luz")],
            "document 1 (in input order) is a tuple of length 3: Index.build takes (docid, text) pairs; (lineno, "
            "docid, text) records need source=",
        ),
        (["ab"], "document 1 (in input order) is a str of length 2: Index.build takes (docid, text) pairs"),
    ],
)
def test_a_document_that_is_no_id_and_text_pair_is_named_in_a_one_line_error(documents, says):
    _refused_by_build(documents, says)


def _refused_by_build(documents, says: str) -> None:
    with pytest.raises(ClirkitError) as err:
        Index.build(documents, Analyzer("es"))
    assert str(err.value).startswith(says) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "tokens, says",
    [
        (["luz aguas"], "Index.from_tokens: document 1 (in input order) is a str, not a list of its terms"),
        ([["luz", ""]], "Index.from_tokens: an empty term; a term is a non-empty str without whitespace"),
        ([["luz\tagua"]], "Index.from_tokens: the term 'luz\\tagua', which has whitespace other than a space"),
        ([["luz "]], "Index.from_tokens: the term 'luz ', which has a space at an end"),
        ([[1]], "Index.from_tokens: the term 1 (int) is not a str"),
    ],
)
def test_from_tokens_refuses_a_text_and_terms_no_analyzer_makes(tokens, says):
    with pytest.raises(ClirkitError) as err:
        Index.from_tokens(["Gen.1.1"], tokens)
    assert str(err.value).startswith(says)


def test_from_tokens_keeps_an_n_gram_of_words_joined_by_one_space():
    assert Index.from_tokens(["Gen.1.3"], [["la", "luz", "la luz"]]).terms.tolist() == ["la", "la luz", "luz"]


@pytest.mark.parametrize("n", [-1, 1.5, True])
def test_most_frequent_terms_refuses_a_count_that_is_no_whole_number_from_0(index, n):
    from clirkit.retrieval.shards import ShardedIndex

    for each in (index, ShardedIndex.split(index, 2)):
        with pytest.raises(ClirkitError, match=f"most_frequent_terms: n must be a whole number >= 0, got {n!r}"):
            each.most_frequent_terms(n)
        assert each.most_frequent_terms(0) == []


def test_drop_terms_removes_postings_and_shortens_documents(index, verses_es):
    counts = Counter(t for text in verses_es.values() for t in Analyzer("es", stemmer=None).tokenize(text))
    top = most_frequent_terms(index, 2)
    assert top == [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:2]] == ["y", "la"]
    smaller = drop_terms(index, top)
    assert "la" not in smaller.vocabulary and smaller.n_terms == index.n_terms - 2
    j = list(index.docids).index("Gen.1.3")  # "Y dijo Dios: Sea la luz: y fué la luz."
    assert index.doc_lengths[j] - smaller.doc_lengths[j] == 4
    assert smaller.analyzer.stopwords == {"la", "y"}


# tampered files: every header value and array is checked before use ---------------------------------


def search(index):
    """BM25 runs of a few Genesis queries: (qid, docid, score) rows."""
    texts = ["la luz y las tinieblas", "el espíritu de dios sobre las aguas", "principio", "noche día tarde"]
    queries = StructuredQueries.from_tokens(
        [f"q{i}" for i in range(len(texts))], [index.analyzer.tokenize(t) for t in texts], index.vocabulary
    )
    run = BM25(index).search(queries)
    return list(zip(run.qids.tolist(), run.docids.tolist(), run.scores.tolist()))


@pytest.fixture
def saved_index(index, tmp_path):
    path = tmp_path / "ix.npz"
    index.save(path)
    return path


def _set(arr, i, value, dtype=None):
    out = arr.astype(dtype or arr.dtype)
    out[i] = value
    return out


# (header changes, array changes as functions of the saved arrays, the problem named)
INDEX_TAMPERING = {
    "a NaN document length": (
        {},
        {"doc_lengths": lambda a: _set(a["doc_lengths"], 7, np.nan)},
        "doc_lengths has NaN at 7",
    ),
    "a negative document length": (
        {},
        {"doc_lengths": lambda a: _set(a["doc_lengths"], 0, -10.0)},
        "doc_lengths has -10.0 at 0, below the minimum 0",
    ),
    "a document length off its counts": (
        {},
        {"doc_lengths": lambda a: _set(a["doc_lengths"], 2, 11.0)},
        "doc_lengths has 11 at 2 but document 'Gen.1.3' counts 10 tokens",
    ),
    "one length too few": (
        {},
        {"doc_lengths": lambda a: a["doc_lengths"][:-1]},
        "docids holds 10 document ids but doc_lengths 9 lengths (one per document): one of "
        "them was cut or edited; rebuild the index with `clirkit index`",
    ),
    "terms reversed": (
        {},
        {"terms": lambda a: a["terms"][::-1]},
        "terms is not strictly increasing at 1 ('á' then 'y')",
    ),
    "a repeated docid": (
        {},
        {"docids": lambda a: _set(a["docids"], 1, "Gen.1.1")},
        "docids is not strictly increasing at 1 ('Gen.1.1' then 'Gen.1.1')",
    ),
    "byte-string docids": ({}, {"docids": lambda a: a["docids"].astype(bytes)}, "docids must hold strings, got |S8"),
    "2-d terms": ({}, {"terms": lambda a: a["terms"].reshape(1, -1)}, "terms must be 1-dimensional, got shape (1, 56)"),
    "negative row pointers": (
        {},
        {"tf_indptr": lambda a: -a["tf_indptr"]},
        "tf_indptr has -1 at 1, below the minimum 0",
    ),
    "float row pointers": (
        {},
        {"tf_indptr": lambda a: _set(a["tf_indptr"], 3, np.nan, np.float64)},
        "tf_indptr must hold integers, got float64",
    ),
    "decreasing row pointers": (
        {},
        {"tf_indptr": lambda a: _set(a["tf_indptr"], 3, 0)},
        "tf_indptr is not in increasing order at 3 (4 then 0)",
    ),
    "row pointers not from 0": ({}, {"tf_indptr": lambda a: a["tf_indptr"] + 1}, "tf_indptr must start at 0, got 1"),
    "a count dropped": (
        {},
        {"tf_data": lambda a: a["tf_data"][:-1]},
        "tf_indptr ends at 121 but tf_data holds 120 and tf_indices 121 entries",
    ),
    "string counts": ({}, {"tf_data": lambda a: a["tf_data"].astype(str)}, "tf_data must hold integers, got <U11"),
    "a zero count": ({}, {"tf_data": lambda a: _set(a["tf_data"], 0, 0)}, "tf_data has 0 at 0, below the minimum 1"),
    "a document id out of range": (
        {},
        {"tf_indices": lambda a: _set(a["tf_indices"], 0, 10)},
        "tf_indices has 10 at 0, above the maximum 9",
    ),
    "a row's documents unsorted": (
        {},
        {"tf_indices": lambda a: a["tf_indices"][::-1].copy()},
        "tf_indices of row 1 are not strictly increasing (at 3)",
    ),
    "analyzer null": (
        {"analyzer": None},
        {},
        "header analyzer: expected an object with lang, lowercase and strip_punctuation, got None",
    ),
    "analyzer a string": (
        {"analyzer": "es"},
        {},
        "header analyzer: expected an object with lang, lowercase and strip_punctuation, got 'es'",
    ),
    "analyzer incomplete": ({"analyzer": {"lang": "es"}}, {}, "header analyzer: missing lowercase, strip_punctuation"),
    "analyzer lowercase a string": (
        {"analyzer.lowercase": "false"},
        {},
        "header analyzer: lowercase must be true or false, got 'false'",
    ),
    "analyzer language unknown": (
        {"analyzer.lang": "xx"},
        {},
        "header analyzer: lang: 'xx' is not an ISO 639-1 language code",
    ),
    "analyzer stopwords a string": (
        {"analyzer.stopwords": "la"},
        {},
        "header analyzer: stopwords must be a list of strings, got 'la'",
    ),
    "stats not an object": ({"stats": 3}, {}, "header stats must be an object, got 3"),
}


@pytest.mark.parametrize("case", list(INDEX_TAMPERING))
def test_a_tampered_index_is_a_one_line_error_naming_the_file_and_the_problem(tamper, saved_index, tmp_path, case):
    header, changes, problem = INDEX_TAMPERING[case]
    with np.load(saved_index, allow_pickle=False) as npz:
        arrays = {name: change(npz) for name, change in changes.items()}
    bad = tamper(saved_index, tmp_path / "bad.npz", header, **arrays)
    with pytest.raises(ClirkitError) as info:
        Index.load(bad)
    assert re.fullmatch(re.escape(f"{bad}: corrupt index: {problem}") + ".*", str(info.value))
    assert "\n" not in str(info.value)


STRUCTURAL = ["reverse", "shuffle", "first repeated", "drop last", "as str", "empty"]
NUMERIC = ["first to NaN", "first to -1", "last doubled", "as float", "as bool"]


@pytest.mark.parametrize(
    "name, mutation",
    [(name, m) for name in ("docids", "terms") for m in STRUCTURAL]
    + [(name, m) for name in ("doc_lengths", "tf_data", "tf_indices", "tf_indptr") for m in STRUCTURAL + NUMERIC],
)
def test_a_mutated_index_array_loads_as_the_same_index_or_is_an_error_never_a_different_run(
    tamper, saved_index, tmp_path, name, mutation
):
    """Mutations that break what the writer guarantees (order, ranges, agreement between arrays);
    a value changed within them (a document renamed, a count moved) is a different index, not a corrupt one."""
    with np.load(saved_index, allow_pickle=False) as npz:
        arr = npz[name]
    changed = {
        "reverse": lambda: arr[::-1].copy(),
        "shuffle": lambda: np.random.default_rng(0).permutation(arr),
        "first repeated": lambda: _set(arr, 1, arr[0]),
        "first to NaN": lambda: _set(arr, 0, np.nan, np.float64),
        "first to -1": lambda: _set(arr, 0, -1),
        "last doubled": lambda: _set(arr, -1, arr[-1] * 2),
        "drop last": lambda: arr[:-1],
        "as float": lambda: arr.astype(np.float64),
        "as str": lambda: arr.astype(str),
        "as bool": lambda: arr.astype(bool),
        "empty": lambda: arr[:0],
    }[mutation]()
    bad = tamper(saved_index, tmp_path / "bad.npz", **{name: changed})
    expected = search(Index.load(saved_index))
    try:
        loaded = Index.load(bad)
    except ClirkitError as exc:
        assert str(exc).startswith(f"{bad}: corrupt index: ") and "\n" not in str(exc)
    else:
        assert search(loaded) == expected


def test_an_index_stored_big_endian_or_with_wider_integers_loads_as_the_same_index(
    tamper, index, saved_index, tmp_path
):
    with np.load(saved_index, allow_pickle=False) as npz:
        arrays = {k: npz[k].astype(npz[k].dtype.newbyteorder(">")) for k in npz.files if k != HEADER_KEY}
    arrays["tf_data"] = arrays["tf_data"].astype(np.int64)
    loaded = Index.load(tamper(saved_index, tmp_path / "be.npz", **arrays))
    assert loaded.tf.data.dtype == np.int32 and (loaded.tf != index.tf).nnz == 0
    assert list(loaded.terms) == list(index.terms) and np.array_equal(loaded.doc_lengths, index.doc_lengths)
    assert search(loaded) == search(index)


def test_an_index_with_terms_dropped_round_trips(index, tmp_path):
    smaller = drop_terms(index, most_frequent_terms(index, 3))
    smaller.save(tmp_path / "small.npz")
    assert search(Index.load(tmp_path / "small.npz")) == search(smaller)


def test_corpus_stopwords_of_a_memory_mapped_index_check_every_count(index, tmp_path, tamper):
    from clirkit.retrieval.index import most_frequent_terms

    path = tmp_path / "ix.npz"
    index.save(path)
    assert most_frequent_terms(Index.load(path, mmap=True), 5) == most_frequent_terms(index, 5)
    with np.load(path) as npz:
        data = npz["tf_data"].copy()
    data[-1] = -4
    out = tamper(path, tmp_path / "bad.npz", tf_data=data)
    with pytest.raises(ClirkitError, match="bad.npz: corrupt index: tf_data has a value below the minimum 1"):
        most_frequent_terms(Index.load(out, mmap=True), 5)


@pytest.mark.parametrize(
    "arrays, problem",
    [
        ({"docids": lambda a: a[:0]}, "docids is empty: an index holds at least one document"),
        (
            {"docids": lambda a: a[:-2]},
            "docids holds {n2} document ids but doc_lengths {n} lengths (one per document): "
            "one of them was cut or edited",
        ),
        (
            {"doc_lengths": lambda a: a[1:]},
            "docids holds {n} document ids but doc_lengths {n1} lengths (one per "
            "document): one of them was cut or edited",
        ),
        (
            {"terms": lambda a: a[:-1]},
            "terms holds {t1} terms but tf_indptr {t1p} row starts (one per term, plus one): "
            "one of them was cut or edited",
        ),
    ],
)
def test_an_emptied_or_cut_array_names_the_arrays_that_disagree_and_says_to_rebuild(
    tamper, saved_index, tmp_path, arrays, problem
):
    with np.load(saved_index, allow_pickle=False) as npz:
        changed = {name: change(npz[name]) for name, change in arrays.items()}
        n, t = len(npz["docids"]), len(npz["terms"])
    bad = tamper(saved_index, tmp_path / "bad.npz", **changed)
    with pytest.raises(ClirkitError) as info:
        Index.load(bad)
    problem = problem.format(n=n, n1=n - 1, n2=n - 2, t1=t - 1, t1p=t + 1)
    assert str(info.value) == f"{bad}: corrupt index: {problem}; rebuild the index with `clirkit index`"
