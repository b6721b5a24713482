"""clirkit.npzio: arrays + JSON header in one .npz; loading checks kind, version and arrays, never unpickles."""

from __future__ import annotations

import io
import json
import os
import re

import numpy as np
import pytest

import clirkit.npzchecks as npzchecks
import clirkit.npzio as npzio
from clirkit.errors import ClirkitError
from clirkit.npzio import HEADER_KEY, load_npz, save_npz

# a tiny index-like payload: three verses of the bundled collection and two of their terms
ARRAYS = {
    "docids": np.array(["Gen.1.1", "Gen.1.3", "John.1.5"]),
    "terms": np.array(["luz", "tinieblas"]),
    "doc_lengths": np.array([10.0, 10.0, 13.0]),
    "tf_indptr": np.array([0, 2, 3], dtype=np.int64),
}
PARAMS = {"analyzer": {"lang": "es"}, "stats": {"n_docs": 3}}


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "ix.npz"
    save_npz(path, "index", 1, PARAMS, ARRAYS)
    return path


def test_load_returns_the_header_and_the_arrays_as_saved(saved):
    header, arrays = load_npz(saved, "index", (1,), ("docids", "terms"))
    assert header == {"kind": "index", "format_version": 1, **PARAMS}
    assert sorted(arrays) == sorted(ARRAYS)  # the header is not among the arrays
    for name, arr in ARRAYS.items():
        assert arrays[name].dtype == arr.dtype and arrays[name].tolist() == arr.tolist()


def test_the_header_is_sorted_json_utf8_bytes_under_the_header_key(saved):
    with np.load(saved, allow_pickle=False) as npz:
        raw = npz[HEADER_KEY]
    assert raw.dtype == np.uint8
    expected = {"kind": "index", "format_version": 1, **PARAMS}
    assert raw.tobytes().decode("utf-8") == json.dumps(expected, sort_keys=True)


def test_a_later_version_is_accepted_when_listed(tmp_path):
    path = tmp_path / "ix.npz"
    save_npz(path, "index", 2, {}, ARRAYS)
    assert load_npz(path, "index", (1, 2), ())[0]["format_version"] == 2


def test_object_arrays_are_refused_and_the_old_file_stays(saved):
    before = saved.read_bytes()
    with pytest.raises(TypeError, match="'terms' has dtype object"):
        save_npz(saved, "index", 1, PARAMS, {**ARRAYS, "terms": np.array(["luz", None], dtype=object)})
    assert saved.read_bytes() == before


def test_a_save_failing_midway_leaves_the_previous_file_loadable(saved, monkeypatch):
    def broken_write(fh, payload, deflated):
        fh.write(b"PK\x03\x04 half a zip")
        raise OSError("No space left on device")

    monkeypatch.setattr(npzio, "_write_members", broken_write)
    with pytest.raises(OSError, match="No space left"):
        save_npz(saved, "index", 1, PARAMS, {"docids": np.array(["Gen.1.2"])})
    monkeypatch.undo()
    assert load_npz(saved, "index", (1,), ())[1]["docids"].tolist() == ARRAYS["docids"].tolist()
    assert os.listdir(saved.parent) == ["ix.npz"]


@pytest.mark.parametrize(
    "kind, made",
    [
        ("index", "an index is made by `clirkit index`"),
        ("translation-table", "a table is made by `clirkit ttable train` or `ttable convert`"),
        ("boost-model", "a boosted model is made by `clirkit boost-train`"),
        ("scs-model", "an SCS model is made by `clirkit scs-train`"),
    ],
)
def test_a_missing_file_is_a_clirkit_error_naming_the_command_that_makes_one(tmp_path, kind, made):
    with pytest.raises(ClirkitError) as info:
        load_npz(tmp_path / "nope.npz", kind, (1,), ())
    assert str(info.value) == f"{tmp_path / 'nope.npz'}: no such file: check the path ({made})"


def test_unsupported_version_names_the_found_and_supported_versions(saved):
    with pytest.raises(
        ClirkitError,
        match=r"ix.npz: index format version 1 is not supported by this clirkit "
        r"\(supported: 2, 3\)",
    ):
        load_npz(saved, "index", (2, 3), ())


def test_another_kind_of_file_is_named(saved):
    with pytest.raises(ClirkitError, match=r"ix.npz: not a clirkit ttable file \(its kind is 'index'\)"):
        load_npz(saved, "ttable", (1,), ())


def test_missing_required_arrays_are_listed(saved):
    with pytest.raises(ClirkitError, match="ix.npz: corrupt index file: missing tf_data, tf_indices"):
        load_npz(saved, "index", (1,), ("docids", "tf_data", "tf_indices"))


def test_a_plain_numpy_npz_has_no_clirkit_header(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, docids=ARRAYS["docids"])
    with pytest.raises(ClirkitError, match=r"plain.npz: not a clirkit index file \(no clirkit header\)"):
        load_npz(path, "index", (1,), ())


@pytest.mark.parametrize(
    "content",
    [
        b"Gen.1.1\tEN el principio cri\xc3\xb3 Dios los cielos y la tierra.\n",  # a text file
        b"",  # an empty file
    ],
)
def test_a_file_that_is_not_an_npz_is_a_clirkit_error(tmp_path, content):
    path = tmp_path / "ix.npz"
    path.write_bytes(content)
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(path, "index", (1,), ())


def test_a_truncated_npz_is_a_clirkit_error(saved):
    data = saved.read_bytes()
    saved.write_bytes(data[: len(data) // 2])
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(saved, "index", (1,), ())


def test_a_directory_is_a_clirkit_error_that_says_so(tmp_path):
    with pytest.raises(ClirkitError, match=r": is a directory, expected a clirkit index file: check the path$"):
        load_npz(tmp_path, "index", (1,), ())


@pytest.mark.parametrize(
    "header, problem",
    [
        (b"\xff\xfe", "is not UTF-8 text"),
        (b'{"kind": "index"', "is not valid JSON (Expecting ',' delimiter at character 17)"),
        (b'{"kind": "index", "format_version": ' + b"7" * 5000 + b"}", "holds an integer of more than 4,300 digits"),
        (b"[" * 100_000 + b"]" * 100_000, "is JSON nested too deeply"),
    ],
)
def test_a_header_that_is_not_json_says_so_and_what_to_do_not_what_the_json_library_advises(tmp_path, header, problem):
    path = tmp_path / "ix.npz"
    np.savez(path, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)})
    with pytest.raises(ClirkitError) as info:
        load_npz(path, "index", (1,), ())
    assert (
        str(info.value) == f"{path}: corrupt index file: its header {problem}; rebuild the index with `clirkit index`"
    )
    assert "set_int_max_str_digits" not in str(info.value)


def test_loading_never_unpickles_an_object_array(tmp_path):
    path = tmp_path / "ix.npz"
    header = json.dumps({"kind": "index", "format_version": 1}).encode("utf-8")
    np.savez(
        path, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)}, docids=np.array([{"Gen.1.1": 1}], dtype=object)
    )  # stored pickled
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(path, "index", (1,), ())


@pytest.mark.parametrize("header", [b'"index"', b"[1]"])
def test_a_json_header_that_is_not_an_object_is_a_clirkit_error(tmp_path, header):
    path = tmp_path / "ix.npz"
    np.savez(path, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)})
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file"):
        load_npz(path, "index", (1,), ())


# the checks loaders make before using what a file holds --------------------------------------------


def test_encode_header_is_what_save_npz_stores(saved):
    with np.load(saved, allow_pickle=False) as npz:
        stored = npz[HEADER_KEY]
    assert stored.tobytes() == npzio.encode_header({"kind": "index", "format_version": 1, **PARAMS}).tobytes()


def test_checking_names_the_file_and_what_it_should_hold_in_one_line():
    with pytest.raises(ClirkitError) as info:
        with npzchecks.checking("ix.npz", "index"):
            npzchecks.require_array(ARRAYS, "doc_lengths", "number", min=0)
            npzchecks.require_array({**ARRAYS, "doc_lengths": np.array([10.0, np.nan, 13.0])}, "doc_lengths", "number")
    assert str(info.value) == "ix.npz: corrupt index: doc_lengths has NaN at 1"
    assert type(info.value) is ClirkitError


def test_checking_lets_other_exceptions_through():
    with pytest.raises(ZeroDivisionError):
        with npzchecks.checking("ix.npz", "index"):
            1 / 0


@pytest.mark.parametrize(
    "array, checks, problem",
    [
        (np.array([10.0, np.nan, 13.0]), {"kind": "number"}, "x has NaN at 1"),
        (np.array([10.0, 10.0, -np.inf]), {"kind": "float"}, "x has an infinite value at 2"),
        (np.array([[1.0, 2.0], [3.0, np.nan]]), {"kind": "float", "ndim": 2}, r"x has NaN at \(1, 1\)"),
        (np.array(["luz", "tinieblas"]), {"kind": "int"}, "x must hold integers, got <U9"),
        (np.array([b"luz"]), {"kind": "str"}, "x must hold strings, got |S3"),
        (np.array([0.0, 2.0]), {"kind": "int"}, "x must hold integers, got float64"),
        (np.array([True, False]), {"kind": "number"}, "x must hold numbers, got bool"),
        (np.array([[0, 2]]), {"kind": "int"}, r"x must be 1-dimensional, got shape \(1, 2\)"),
        (np.array([0, 2]), {"kind": "int", "shape": (3,)}, r"x must have shape \(3,\), got \(2,\)"),
        (
            np.zeros((2, 5)),
            {"kind": "float", "ndim": 2, "shape": (None, 6)},
            r"x must have shape \(any, 6\), got \(2, 5\)",
        ),
        (np.array([0, -2, 3]), {"kind": "int", "min": 0}, "x has -2 at 1, below the minimum 0"),
        (np.array([0, 2, 3]), {"kind": "int", "max": 2}, "x has 3 at 2, above the maximum 2"),
        (
            np.array([0, 2**40]),
            {"kind": "int", "dtype": np.int32},
            "x has 1099511627776 at 1, above the maximum 2147483647",
        ),
        (np.array([0, 3, 2]), {"kind": "int", "sorted": True}, r"x is not in increasing order at 2 \(3 then 2\)"),
        (
            np.array(["luz", "luz"]),
            {"kind": "str", "sorted": True, "unique": True},
            r"x is not strictly increasing at 1 \('luz' then 'luz'\)",
        ),
        (
            np.array(["tinieblas", "luz", "tinieblas"]),
            {"kind": "str", "unique": True},
            "x holds 'tinieblas' more than once",
        ),
    ],
)
def test_require_array_names_the_array_the_problem_and_the_first_place(array, checks, problem):
    with pytest.raises(npzchecks.Corrupt, match=f"^{problem}$"):
        npzchecks.require_array({"x": array}, "x", **checks)


def test_require_array_returns_native_byte_order_and_the_asked_dtype():
    got = npzchecks.require_array({"x": np.array([3, 1, 2], dtype=">i8")}, "x", "int", min=0, dtype=np.int32)
    assert got.dtype == np.int32 and got.dtype.isnative and got.tolist() == [3, 1, 2]
    assert npzchecks.require_array({}, "x", "int", optional=True) is None
    with pytest.raises(npzchecks.Corrupt, match="^x is missing$"):
        npzchecks.require_array({}, "x", "int")


HEADER = {
    "ngram": 2,
    "beta": 5.0,
    "doc_weighting": "idf",
    "shape": [4, 5],
    "base": None,
    "params": {"eps": 1.0, "thresholds": [0.2, 0.7]},
    "history": [{"loss": 0.13}],
}


@pytest.mark.parametrize(
    "name, kind, checks, value, problem",
    [
        ("ngram", "int", {"choices": (1, 2, 3)}, -5, "header ngram must be 1, 2 or 3, got -5"),
        ("ngram", "int", {"choices": (1, 2, 3)}, True, "header ngram must be 1, 2 or 3, got true"),
        ("ngram", "int", {"min": 1}, 1.5, "header ngram must be an integer >= 1, got 1.5"),
        ("beta", "number", {"min": 0}, float("nan"), "header beta must be a finite number >= 0, got NaN"),
        (
            "beta",
            "number",
            {"min": 0},
            10**400,
            r"header beta must be a finite number >= 0, got 1000000000000000000000000000000000000\.\.\.",
        ),
        ("beta", "number", {"min": 0, "max": 100}, "x", r'header beta must be a finite number in 0..100, got "x"'),
        (
            "doc_weighting",
            "str",
            {"choices": ("binary", "idf")},
            "tf",
            'header doc_weighting must be "binary" or "idf", got "tf"',
        ),
        (
            "shape",
            "list",
            {"items": "int", "length": 2, "min": 0},
            [4],
            r"header shape must be a list of 2 integers >= 0, got \[4\]",
        ),
        (
            "shape",
            "list",
            {"items": "int", "length": 2, "min": 0},
            [4, -1],
            r"header shape must be a list of 2 integers >= 0, got \[4, -1\]",
        ),
        ("base", "object", {"nullable": True}, [1], r"header base must be an object or null, got \[1\]"),
        ("params", "object", {}, "x", 'header params must be an object, got "x"'),
        ("params", "object", {}, None, "header params must be an object, got null"),
    ],
)
def test_require_field_says_what_the_header_value_must_be_and_what_it_is(name, kind, checks, value, problem):
    assert npzchecks.require_field(HEADER, name, kind, **checks) == HEADER[name]
    with pytest.raises(npzchecks.Corrupt, match=f"^{problem}$"):
        npzchecks.require_field({**HEADER, name: value}, name, kind, **checks)


def test_require_field_follows_paths_into_objects_and_lists():
    assert npzchecks.require_field(HEADER, ("params", "eps"), "number", min=0) == 1.0
    assert npzchecks.require_field(HEADER, ("history", 0, "loss"), "number") == 0.13
    assert npzchecks.require_field(HEADER, ("params", "margin"), "number", default=0.2) == 0.2
    with pytest.raises(npzchecks.Corrupt, match=r"^header history\[1\].loss is missing$"):
        npzchecks.require_field(HEADER, ("history", 1, "loss"), "number")
    with pytest.raises(
        npzchecks.Corrupt, match=r'^header params.thresholds must be a list of finite numbers, got \["a"\]$'
    ):
        npzchecks.require_field({"params": {"thresholds": ["a"]}}, ("params", "thresholds"), "list", items="number")


@pytest.mark.parametrize(
    "settings, problem",
    [
        (None, "header analyzer: expected an object with lang, lowercase and strip_punctuation, got None"),
        ("es", "header analyzer: expected an object with lang, lowercase and strip_punctuation, got 'es'"),
        ({"lang": "es"}, "header analyzer: missing lowercase, strip_punctuation"),
        (
            {"lang": "es", "lowercase": "no", "strip_punctuation": True},
            "header analyzer: lowercase must be true or false, got 'no'",
        ),
        (
            {"lang": 5, "lowercase": True, "strip_punctuation": True},
            "header analyzer: lang: 5 is not an ISO 639-1 language code",
        ),
        (
            {"lang": "es", "lowercase": True, "strip_punctuation": True, "stopwords": "la"},
            "header analyzer: stopwords must be a list of strings, got 'la'",
        ),
        (
            {"lang": "es", "lowercase": True, "strip_punctuation": True, "stemming": "snowball"},
            "header analyzer: unknown setting 'stemming'",
        ),
        (
            {"lang": "es", "lowercase": True, "strip_punctuation": True, "stemmer": "porter"},
            "header analyzer: stemmer must be one of 'snowball' or null, got 'porter'",
        ),
        (
            {"lang": "es", "lowercase": True, "strip_punctuation": True, "cjk_bigrams": "yes"},
            "header analyzer: cjk_bigrams must be true or false, got 'yes'",
        ),
    ],
)
def test_require_analyzer_turns_malformed_settings_into_one_line(settings, problem):
    old = npzchecks.require_analyzer(
        {"analyzer": {"lang": "es", "lowercase": True, "strip_punctuation": True}}, "analyzer"
    )
    assert old.lang == "es" and old.stemmer is None and not old.cjk_bigrams  # written before stemming: whole words
    stemmed = {"lang": "es", "lowercase": True, "strip_punctuation": True, "stemmer": "snowball", "cjk_bigrams": False}
    assert npzchecks.require_analyzer({"analyzer": stemmed}, "analyzer").stemmer == "snowball"
    with pytest.raises(npzchecks.Corrupt, match=f"^{re.escape(problem)}"):
        npzchecks.require_analyzer({"analyzer": settings}, "analyzer")


# a 3 x 4 matrix: rows [0 1 . 2], [. . . .], [3 . . 4]
CSR = {"d": np.array([1.0, 1.0, 2.0, 3.0, 4.0]), "i": np.array([0, 1, 3, 0, 3]), "p": np.array([0, 3, 3, 5])}


def test_require_csr_builds_the_canonical_matrix():
    m = npzchecks.require_csr(CSR, ("d", "i", "p"), (3, 4), "float")
    assert m.has_canonical_format and m.toarray().tolist() == [[1, 1, 0, 2], [0, 0, 0, 0], [3, 0, 0, 4]]


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"p": np.array([1, 3, 3, 5])}, "p must start at 0, got 1"),
        ({"p": np.array([0, 3, 2, 5])}, r"p is not in increasing order at 2 \(3 then 2\)"),
        ({"p": np.array([0, 3, 5])}, r"p must have shape \(4,\), got \(3,\)"),
        ({"p": np.array([0, 3, 3, 4])}, "p ends at 4 but d holds 5 and i 5 entries"),
        ({"i": np.array([0, 1, 4, 0, 3])}, "i has 4 at 2, above the maximum 3"),
        ({"i": np.array([0, 3, 1, 0, 3])}, r"i of row 0 are not strictly increasing \(at 2\)"),
        ({"i": np.array([0, 1, 3, 3, 3])}, r"i of row 2 are not strictly increasing \(at 4\)"),
        ({"d": np.array([1.0, 1.0, 2.0, np.nan, 4.0])}, "d has NaN at 3"),
    ],
)
def test_require_csr_refuses_what_scipy_would_take_or_crash_on(change, problem):
    with pytest.raises(npzchecks.Corrupt, match=f"^{problem}$"):
        npzchecks.require_csr({**CSR, **change}, ("d", "i", "p"), (3, 4), "float")


# found by fuzzing (tests/test_fuzz.py) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "array, problem",
    [
        (
            np.array(["Gen.1.1", "Gen.1.\ud800"]),
            r"x holds a string that is not valid Unicode \(a lone surrogate\) at 1",
        ),
        (np.array([["luz", "\udfff"]]), r"x holds a string that is not valid Unicode \(a lone surrogate\) at \(0, 1\)"),
    ],
)
def test_require_array_refuses_strings_that_cannot_be_written_as_utf8(array, problem):
    # accepted before, they failed much later: UnicodeEncodeError when a run or a table was written
    with pytest.raises(npzchecks.Corrupt, match=f"^{problem}$"):
        npzchecks.require_array({"x": array}, "x", "str", array.ndim)


def test_require_array_takes_big_endian_strings():
    big_endian = np.array(["luz", "tierra"]).astype(">U6")
    assert npzchecks.require_array({"x": big_endian}, "x", "str").tolist() == ["luz", "tierra"]


@pytest.mark.parametrize("version, shown", [(True, "true"), ("1\n", '"1\\n"'), (1.0, "1.0")])
def test_a_format_version_of_another_type_is_refused_in_one_line(tmp_path, version, shown):
    path = tmp_path / "ix.npz"
    header = json.dumps({"kind": "index", "format_version": version}).encode("utf-8")
    np.savez(path, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)})
    with pytest.raises(ClirkitError, match=f"ix.npz: index format version {re.escape(shown)} is not supported") as info:
        load_npz(path, "index", (1,), ())
    assert "\n" not in str(info.value)


def test_an_array_header_numpy_cannot_tokenize_is_a_clirkit_error(tmp_path):
    import zipfile

    old, new = b"'shape': (3,)", b"'shape': (3, "  # numpy reads it as a literal, then tokenizes it: TokenError

    path = tmp_path / "ix.npz"
    buf = io.BytesIO()
    np.save(buf, np.array([0, 2, 3], dtype="<i8"))
    npy = buf.getvalue()
    assert npy.count(old) == 1
    with zipfile.ZipFile(path, "w") as zf:  # a well-formed zip (right CRCs) holding a broken .npy header
        zf.writestr(HEADER_KEY + ".npy", _npy(npzio.encode_header({"kind": "index", "format_version": 1})))
        zf.writestr("tf_indptr.npy", npy.replace(old, new))
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(path, "index", (1,), ())


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def test_damage_inside_a_compressed_member_is_a_clirkit_error(tmp_path):
    path = tmp_path / "ix.npz"
    np.savez_compressed(
        path,
        **{HEADER_KEY: npzio.encode_header({"kind": "index", "format_version": 1})},
        docids=np.array(["Gen.1.%d" % i for i in range(200)]),
    )
    data = bytearray(path.read_bytes())
    start = data.index(b"docids.npy") + len("docids.npy") + 40  # inside the deflate stream of docids
    data[start : start + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(path, "index", (1,), ())


@pytest.mark.parametrize(
    "data",
    [bytes(range(256)) * 4, b"\x80\x04\x95junk", b"\x93NUMPY\x01\x00", b""],
    ids=["random bytes", "a pickle", "an npy file", "empty"],
)
def test_a_file_that_is_not_a_zip_archive_is_called_so_never_pickled_data_to_load_unsafely(tmp_path, data):
    path = tmp_path / "x.npz"
    path.write_bytes(data)
    with pytest.raises(ClirkitError) as info:
        load_npz(path, "index", (1,), ())
    assert str(info.value) == (
        f"{path}: not a clirkit index file or corrupt (not a zip archive, as every .npz file "
        f"is): check the path, or rebuild the index with `clirkit index`"
    )
    assert "pickle" not in str(info.value)


@pytest.mark.parametrize(
    "what, fix",
    [
        ("index", "rebuild the index with `clirkit index`"),
        ("translation table", "make the table again (`clirkit ttable train`"),
        ("SCS model", "train the model again with `clirkit scs-train`"),
    ],
)
def test_checking_with_a_remedy_says_how_to_make_the_file_again(what, fix):
    with pytest.raises(ClirkitError) as info:
        with npzchecks.checking("f.npz", what, remedy=True):
            npzchecks.require_array({**ARRAYS, "doc_lengths": np.array([10.0, np.nan])}, "doc_lengths", "number")
    assert str(info.value).startswith(f"f.npz: corrupt {what}: doc_lengths has NaN at 1; {fix}")


def test_a_file_of_another_version_or_missing_arrays_says_what_to_do(saved):
    with pytest.raises(
        ClirkitError,
        match=r"\(supported: 2\): rebuild the index with `clirkit index` of this "
        r"version, or use the clirkit that wrote it$",
    ):
        load_npz(saved, "index", (2,), ())
    with pytest.raises(ClirkitError, match=r"missing tf_data; rebuild the index with `clirkit index`$"):
        load_npz(saved, "index", (1,), ("tf_data",))
    with pytest.raises(ClirkitError, match=r"\(its kind is 'index'\): check the path$"):
        load_npz(saved, "translation-table", (1,), ())


@pytest.mark.parametrize("kind, inside", [("index", "index.npz"), ("translation-table", "table.npz")])
def test_an_experiment_folder_given_for_its_index_or_table_names_the_file_in_it(tmp_path, kind, inside):
    (tmp_path / inside).write_bytes(b"")
    with pytest.raises(ClirkitError) as info:
        load_npz(tmp_path, kind, (1,), ())
    assert str(info.value) == (
        f"{tmp_path}: is a directory, expected a clirkit {kind} file: check the path (an "
        f"experiment folder? give {tmp_path / inside})"
    )


def test_without_deflate_the_file_is_the_bytes_np_savez_writes(tmp_path):
    """Indexes are saved without deflate so that every member can be memory-mapped: their bytes stay np.savez's."""
    arrays = {"ints": np.arange(1000, dtype=np.int32), "floats": np.linspace(0, 1, 300), "words": np.array(["a", "bc"])}
    save_npz(tmp_path / "f.npz", "index", 1, PARAMS, arrays)
    expected = io.BytesIO()
    np.savez(
        expected, **{npzio.HEADER_KEY: npzio.encode_header({"kind": "index", "format_version": 1, **PARAMS}), **arrays}
    )
    assert (tmp_path / "f.npz").read_bytes() == expected.getvalue()


def test_deflate_stores_the_floats_deflates_the_rest_and_reads_back_the_same_arrays(tmp_path):
    import zipfile

    arrays = {
        "indices": np.arange(100_000, dtype=np.int32) % 77,
        "data": np.linspace(0, 1, 50_000),
        "vocab": np.array(["palabra%d" % i for i in range(5_000)]),
    }
    for name in ("a.npz", "b.npz"):
        save_npz(tmp_path / name, "translation-table", 1, PARAMS, arrays, deflate=True)
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()  # dated 1980, not now
    methods = {i.filename: i.compress_type for i in zipfile.ZipFile(tmp_path / "a.npz").infolist()}
    assert methods == {
        "__header__.npy": zipfile.ZIP_DEFLATED,
        "indices.npy": zipfile.ZIP_DEFLATED,
        "data.npy": zipfile.ZIP_STORED,
        "vocab.npy": zipfile.ZIP_DEFLATED,
    }
    save_npz(tmp_path / "stored.npz", "translation-table", 1, PARAMS, arrays)
    assert (tmp_path / "a.npz").stat().st_size < 0.75 * (tmp_path / "stored.npz").stat().st_size
    for mmap in (False, True):
        header, read = load_npz(tmp_path / "a.npz", "translation-table", (1,), tuple(arrays), mmap=mmap)
        assert header == {"kind": "translation-table", "format_version": 1, **PARAMS}
        for name, arr in arrays.items():
            assert read[name].dtype == arr.dtype and np.array_equal(read[name], arr)
