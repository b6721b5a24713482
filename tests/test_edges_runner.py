"""Edge cases of running an experiment: an error a system raises while it is fitted or searched names the file and
the system, and a run stopping on it before it made anything leaves no staging folder (one that had made something
keeps it for the corrected run to resume from)."""

from __future__ import annotations

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment.kinds import system_class

PLAIN = (
    'measures = ["AP"]\n[collection]\ndocuments = "docs.tsv"\nqueries = "q.tsv"\nqrels = "q.qrels"\n'
    'source_lang = "en"\ntarget_lang = "es"\n[systems.DT]\nkind = "dt"\ntable = "en-es.txt"\n'
    'table_format = "pairs"\n'
)
BM25 = '[systems.BM]\nkind = "bm25"\n'


@pytest.fixture
def plain(tmp_path):
    """A [collection] of two verses and two queries (each with a Spanish word BM25 finds), and a dictionary."""
    (tmp_path / "docs.tsv").write_text("d1\tla luz\nd2\tlas tinieblas\n", encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tlight luz\nq2\tdarkness tinieblas\n", encoding="utf-8")
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d2 1\n", encoding="utf-8")
    (tmp_path / "en-es.txt").write_text("light luz\ndarkness tinieblas\n", encoding="utf-8")
    return tmp_path


def _failing_fit(monkeypatch, message: str) -> None:
    def fit(self, *args, **kwargs):
        raise ClirkitError(message)

    monkeypatch.setattr(system_class("dt"), "fit", fit)


def _run(plain, text: str) -> int:
    (plain / "e.toml").write_text(text, encoding="utf-8")
    return main(["run", str(plain / "e.toml"), "-o", str(plain / "out"), "-q"])


# ------------------------------------------------------------------ 4. the file and the system named


@pytest.mark.parametrize(
    "raised, said",
    [
        ("k1: BM25's, unused", "system 'DT': k1: BM25's, unused"),
        ("{toml}: table: no such file", "system 'DT': table: no such file"),  # the file named once
        ("{toml}: system 'DT': k1: bad", "system 'DT': k1: bad"),  # already named: as it is
    ],
    ids=["plain", "naming the file", "naming the system"],
)
def test_an_error_of_a_systems_fit_names_the_experiment_file_and_the_system_once(
    plain, capsys, monkeypatch, raised, said
):
    toml = plain / "e.toml"
    _failing_fit(monkeypatch, raised.format(toml=toml))
    assert _run(plain, PLAIN) == 2
    assert capsys.readouterr().err == f"clirkit: error: {toml}: {said}\n"


def test_an_error_of_a_systems_search_names_the_experiment_file_and_the_system(plain, capsys, monkeypatch):
    cls = system_class("bm25")

    def search_split(self, view, split, tag=None, packed=False):
        raise ClirkitError("queries: something wrong")

    monkeypatch.setattr(cls, "search_split", search_split)
    assert _run(plain, PLAIN + BM25) == 2
    assert capsys.readouterr().err == (  # DT's run was made: the staging folder is kept, and said (round 13, 13A-16)
        f"clirkit: error: {plain / 'e.toml'}: system 'BM': queries: something wrong (the work done so far is kept in "
        f"{plain / '.out.partial'}; the corrected run into {plain / 'out'} resumes it)\n"
    )


# ------------------------------------------------------------------ 5. what a failed run leaves behind


def test_a_run_failing_in_a_fit_before_it_made_anything_leaves_no_staging_folder(plain, capsys, monkeypatch):
    _failing_fit(monkeypatch, "k1: BM25's, unused")
    assert _run(plain, PLAIN) == 2
    capsys.readouterr()
    assert not (plain / "out").exists() and not (plain / ".out.partial").exists()
    monkeypatch.undo()
    assert _run(plain, PLAIN) == 0  # corrected: it runs
    assert (plain / "out" / "runs" / "dt.test.run.gz").is_file() and not (plain / ".out.partial").exists()


def test_a_run_failing_after_it_made_something_keeps_it_for_the_corrected_run(plain, capsys, monkeypatch):
    cls = system_class("bm25")

    def search_split(self, view, split, tag=None, packed=False):
        raise ClirkitError("queries: something wrong")

    monkeypatch.setattr(cls, "search_split", search_split)
    assert _run(plain, PLAIN + BM25) == 2
    capsys.readouterr()
    partial = plain / ".out.partial"
    made = (partial / "runs" / "dt.test.run.gz").read_bytes()  # DT's run, made before BM failed
    monkeypatch.undo()
    assert _run(plain, PLAIN + BM25) == 0 and not partial.exists()
    assert (plain / "out" / "runs" / "dt.test.run.gz").read_bytes() == made
    assert (plain / "out" / "runs" / "bm.test.run.gz").is_file()


def test_a_ctrl_c_before_anything_was_made_keeps_the_staging_folder_for_the_resume(plain, monkeypatch):
    def fit(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(system_class("dt"), "fit", fit)
    assert _run(plain, PLAIN) == 130
    assert (plain / ".out.partial" / "collection").is_dir()
