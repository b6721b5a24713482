"""clirkit.npzio: arrays + JSON header in one .npz; loading checks kind, version and arrays, never unpickles."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import clirkit.npzio as npzio
from clirkit.errors import ClirkitError
from clirkit.npzio import HEADER_KEY, load_npz, save_npz

# a tiny index-like payload: three verses of the bundled collection and two of their terms
ARRAYS = {"docids": np.array(["Gen.1.1", "Gen.1.3", "John.1.5"]), "terms": np.array(["luz", "tinieblas"]),
          "doc_lengths": np.array([10.0, 10.0, 13.0]), "tf_indptr": np.array([0, 2, 3], dtype=np.int64)}
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
    def broken_savez(fh, **payload):
        fh.write(b"PK\x03\x04 half a zip")
        raise OSError("No space left on device")

    monkeypatch.setattr(npzio.np, "savez", broken_savez)
    with pytest.raises(OSError, match="No space left"):
        save_npz(saved, "index", 1, PARAMS, {"docids": np.array(["Gen.1.2"])})
    monkeypatch.undo()
    assert load_npz(saved, "index", (1,), ())[1]["docids"].tolist() == ARRAYS["docids"].tolist()
    assert os.listdir(saved.parent) == ["ix.npz"]


def test_missing_file_is_a_clirkit_error(tmp_path):
    with pytest.raises(ClirkitError, match="nope.npz: no such file"):
        load_npz(tmp_path / "nope.npz", "index", (1,), ())


def test_unsupported_version_names_the_found_and_supported_versions(saved):
    with pytest.raises(ClirkitError, match=r"ix.npz: index format version 1 is not supported by this clirkit "
                                           r"\(supported: 2, 3\)"):
        load_npz(saved, "index", (2, 3), ())


def test_another_kind_of_file_is_named(saved):
    with pytest.raises(ClirkitError, match=r"ix.npz: not a clirkit ttable file \(it holds a 'index'\)"):
        load_npz(saved, "ttable", (1,), ())


def test_missing_required_arrays_are_listed(saved):
    with pytest.raises(ClirkitError, match="ix.npz: corrupt index file: missing tf_data, tf_indices"):
        load_npz(saved, "index", (1,), ("docids", "tf_data", "tf_indices"))


def test_a_plain_numpy_npz_has_no_clirkit_header(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, docids=ARRAYS["docids"])
    with pytest.raises(ClirkitError, match=r"plain.npz: not a clirkit index file \(no clirkit header\)"):
        load_npz(path, "index", (1,), ())


@pytest.mark.parametrize("content", [
    b"Gen.1.1\tEN el principio cri\xc3\xb3 Dios los cielos y la tierra.\n",  # a text file
    b"",  # an empty file
])
def test_a_file_that_is_not_an_npz_is_a_clirkit_error(tmp_path, content):
    path = tmp_path / "ix.npz"
    path.write_bytes(content)
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(path, "index", (1,), ())


def test_a_truncated_npz_is_a_clirkit_error(saved):
    data = saved.read_bytes()
    saved.write_bytes(data[:len(data) // 2])
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(saved, "index", (1,), ())


def test_a_directory_is_a_clirkit_error(tmp_path):
    with pytest.raises(ClirkitError, match="not a clirkit index file or corrupt"):
        load_npz(tmp_path, "index", (1,), ())


@pytest.mark.parametrize("header", [b"\xff\xfe", b"{\"kind\": \"index\""])
def test_an_undecodable_or_broken_json_header_is_a_clirkit_error(tmp_path, header):
    path = tmp_path / "ix.npz"
    np.savez(path, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)})
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(path, "index", (1,), ())


def test_loading_never_unpickles_an_object_array(tmp_path):
    path = tmp_path / "ix.npz"
    header = json.dumps({"kind": "index", "format_version": 1}).encode("utf-8")
    np.savez(path, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)},
             docids=np.array([{"Gen.1.1": 1}], dtype=object))  # stored pickled
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file or corrupt"):
        load_npz(path, "index", (1,), ())


@pytest.mark.parametrize("header", [b"\"index\"", b"[1]"])
def test_a_json_header_that_is_not_an_object_is_a_clirkit_error(tmp_path, header):
    path = tmp_path / "ix.npz"
    np.savez(path, **{HEADER_KEY: np.frombuffer(header, dtype=np.uint8)})
    with pytest.raises(ClirkitError, match="ix.npz: not a clirkit index file"):
        load_npz(path, "index", (1,), ())
