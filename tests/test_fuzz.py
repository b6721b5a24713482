"""Mutated real files fed to every reader and loader: each gives a valid result, the clean file's own when
the change is neutral, or raises ClirkitError; never another exception, never a hang.

The targets (documents, queries, topic files in TREC SGML, CLEF XML and SGML, NTCIR XML and HC4 JSONL, qrels,
runs, parallel text, stopwords, translation tables in the Moses (lines and phrase tables), HLTCOE PSQ json, pairs,
MUSE (named and told by content), Ding and FreeDict formats, Pharaoh word alignments, word vectors, the
collection manifest, and the index, table, boost and SCS ``.npz`` files), their seeds (slices of the bundled
nave-en-es collection and small artifacts trained on them), the mutations and the invariants are those of
``tests/hardening/fuzz.py``, which fuzzes them for minutes (``python -m tests.hardening.fuzz``); here
hypothesis draws the mutations, derandomized so that every run sees the same inputs.
"""

from __future__ import annotations

import contextlib
import gzip
import signal
from pathlib import Path

import numpy as np
import pytest
from hardening import fuzz  # tests/hardening/fuzz.py (pytest puts tests/ on the path)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clirkit.errors import ClirkitError

pytestmark = pytest.mark.slow  # hypothesis over every reader and loader: about 40 s

TEXT_TARGETS = [n for n in fuzz.TARGET_NAMES if not n.endswith("_npz")]
NPZ_TARGETS = [n for n in fuzz.TARGET_NAMES if n.endswith("_npz")]
EXAMPLES = {"text": 150, "npz": 300}  # per target: about 30 s for the whole module
FUZZ_SETTINGS = settings(
    max_examples=45, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """Files a manifest derives (``subset_of``) go to a temporary cache, not the user's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLIRKIT_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    return fuzz.build_targets(tmp_path_factory.mktemp("fuzz-seeds"))


class Hang(BaseException):
    """An input that took too long (a BaseException: the readers' ``except Exception`` cannot swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    def expired(signum, frame):
        raise Hang(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def outcome_of(target, files, workdir, *, neutral=False, seed_index=0):
    with time_limit(20):
        return fuzz.run_input(target, files, workdir, neutral=neutral, seed_index=seed_index)


def fuzz_target(target, workdir: Path, ops: list[str], examples: int) -> None:
    @settings(FUZZ_SETTINGS, max_examples=examples)
    @given(
        op=st.sampled_from(ops), seed_index=st.integers(0, len(target.seeds) - 1), rnd=st.randoms(use_true_random=False)
    )
    def one_input(op, seed_index, rnd):
        _, files, what, _ = fuzz.make_input(target, rnd, op=op, seed_index=seed_index)
        outcome, detail = outcome_of(target, files, workdir)
        assert outcome in ("ok", "error"), f"{target.name}, {what}: {outcome}\n{detail}"

    one_input()


@pytest.mark.parametrize("name", TEXT_TARGETS)
def test_a_mutated_text_file_reads_as_valid_data_or_is_a_clirkit_error(targets, tmp_path, name):
    target = targets[name]
    ops = [op for op in fuzz.TEXT_MUTATIONS if op != "json_value" or target.kind == "json"] + ["chain"]
    fuzz_target(target, tmp_path / name, ops, EXAMPLES["text"])


@pytest.mark.parametrize("name", NPZ_TARGETS)
def test_a_mutated_npz_file_loads_as_valid_data_or_is_a_clirkit_error(targets, tmp_path, name):
    fuzz_target(targets[name], tmp_path / name, ["npz", "npz", "npz", "flip", "truncate"], EXAMPLES["npz"])


NEUTRAL = [(name, how) for name in TEXT_TARGETS for how in fuzz.TEXT_NEUTRAL] + [
    (name, how) for name in NPZ_TARGETS for how in fuzz.NPZ_NEUTRAL
]


@pytest.mark.parametrize("name, how", NEUTRAL)
def test_a_neutral_change_gives_the_clean_files_result(targets, tmp_path, name, how):
    target = targets[name]
    if target.neutral is not None and how not in target.neutral:
        pytest.skip(f"{how} is not neutral for {name}")
    for k, seed in enumerate(target.seeds):
        files = dict(seed)
        first = next(iter(files))
        files[first] = (
            fuzz.npz_neutral(files[first], how) if target.kind == "npz" else fuzz.TEXT_NEUTRAL[how](files[first])
        )
        outcome, detail = outcome_of(target, files, tmp_path / name, neutral=True, seed_index=k)
        assert outcome == "ok", f"{name}, seed {k}, {how}: {outcome}: {detail}"


# regressions found by the fuzzer in readers whose test modules are not about files ------------------------


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize(
    "line, problem",
    [
        ("Gen.1.1\x00\tIn the beginning\tEN el principio", r"parallel.tsv:2: pair id 'Gen.1.1\\x00' contains a NUL"),
        ("\tIn the beginning\tEN el principio", "parallel.tsv:2: empty pair id"),
        ("Gen 1\tIn the beginning\tEN el principio", "parallel.tsv:2: pair id 'Gen 1' contains whitespace"),
        ("G" * 5000 + "\tIn the beginning\tEN el principio", "parallel.tsv:2: pair id of 5,000 characters"),
    ],
)
def test_a_parallel_pair_id_must_be_an_id(tmp_path, line, problem):
    from clirkit.datasets.parallel import read_parallel

    path = _write(tmp_path / "parallel.tsv", f"Gen.1.2\tAnd the earth\tY la tierra\n{line}\n")
    with pytest.raises(ClirkitError, match=problem):
        read_parallel(path)


def test_a_word2vec_header_after_blank_lines_is_still_the_header(tmp_path):
    from clirkit.scs.encoding import read_word_vectors

    path = _write(tmp_path / "v.txt", "\n\n2 3\ndios 0.5 -0.25 1\nluz 0 0 0.125\n")
    words, vectors = read_word_vectors(path, 3)
    assert words.tolist() == ["dios", "luz"] and vectors.tolist() == [[0.5, -0.25, 1.0], [0.0, 0.0, 0.125]]


@pytest.mark.parametrize(
    "line, problem",
    [
        (" 0.5 -0.25 1", "v.txt:2: empty word"),
        ("luz\x00 0.5 -0.25 1", r"v.txt:2: word 'luz\\x00' contains a NUL character"),
        ("l" * 1001 + " 0.5 -0.25 1", "v.txt:2: word of 1,001 characters"),
        ("luz 0.5 1e309 1", "v.txt:2: the vector of 'luz' holds inf or nan"),
    ],
)
def test_a_word_vector_line_with_a_bad_word_or_value_names_its_line(tmp_path, line, problem):
    from clirkit.scs.encoding import read_word_vectors

    path = _write(tmp_path / "v.txt", f"dios 0.5 -0.25 1\n{line}\n")
    with pytest.raises(ClirkitError, match=problem):
        read_word_vectors(path, 3)


@pytest.fixture
def collection_folder(tmp_path, mini):
    import shutil

    folder = tmp_path / "c"
    shutil.copytree(mini, folder)
    return folder


def _manifest(folder: Path, change) -> None:
    import json

    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    change(manifest)
    path.write_text(json.dumps(manifest), encoding="utf-8")


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda m: m.pop("name"), "manifest name must be a name"),
        (lambda m: m.update(splits="train"), "manifest splits must be a list of distinct split names"),
        (lambda m: m.update(splits=["train", "\n"]), "manifest splits must be a list of distinct split names"),
        (lambda m: m["files"].pop("parallel"), "manifest files.parallel must be a file name"),
        (
            lambda m: m["files"]["qrels"].pop("dev"),
            r"manifest files.qrels must be an object naming a file for each split",
        ),
        (lambda m: m["files"].update(documents={"subset_of": 5}), "manifest files.documents must be a file name"),
        (lambda m: m.update(counts=None), "manifest counts must be an object, got null"),
        (lambda m: m.update(version=True), "collection format version True"),
    ],
)
def test_a_manifest_missing_or_mistyping_a_value_is_one_error_naming_it(collection_folder, change, problem):
    from clirkit import datasets

    _manifest(collection_folder, change)
    with pytest.raises(ClirkitError, match=problem):
        datasets.load(str(collection_folder))


def test_a_manifest_with_a_byte_order_mark_is_read(collection_folder):
    from clirkit import datasets

    path = collection_folder / "manifest.json"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert datasets.load(str(collection_folder)).name == "mini-nave"


def _toy_read(path):
    """A reader that hangs on one seed and fails with a KeyError on the other, whatever the mutation."""
    import time

    if Path(path).name == "sleep.txt":
        time.sleep(60)
    raise KeyError("boom")


def test_the_fuzzing_script_counts_hangs_and_uncaught_exceptions(tmp_path):
    target = fuzz.Target("toy", "text", [{"boom.txt": b"x"}, {"sleep.txt": b"x"}], _toy_read, lambda r: None)
    target.clean = [None, None]
    stats = fuzz.fuzz([target], minutes=0.06, timeout=0.25, workdir=str(tmp_path), progress=False)["toy"]
    assert stats["hang"] >= 1 and stats["uncaught"] >= 1 and stats["ok"] == 0
    assert stats["inputs"] == stats["hang"] + stats["uncaught"]
    kinds = {k.split(":")[0].split(" at ")[0] for k in stats["failures"]}
    assert kinds == {"uncaught KeyError", "hang"}


def test_gzip_helpers_round_trip():
    assert gzip.decompress(fuzz.n_gzip(b"Gen.1.1\tEN el principio\n")) == b"Gen.1.1\tEN el principio\n"
    assert np.array_equal(fuzz.read_npz(fuzz.write_npz({"kind": "x"}, {"a": np.arange(3)}))[1]["a"], np.arange(3))
