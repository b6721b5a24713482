"""The experiment runner at the edges of the twenty-first round of independent testing: a resumed run leaves the
folder a fresh run writes; checks decidable from the file or its run files made before any work (``eval_every``
beyond ``rounds``, a run file's rows a boosted ranker or an untransformed fusion would refuse, at their line);
a base run named by the system that made it; the kappa-sweep figure labelling each curve with its own measure; a
fusion whose weights all tied on dev said so; ``dev_queries`` without a dev split, ``--variant ''``, an unknown
variant naming the file, ``keep_runs`` naming a run whose name holds ``[``; no empty gains section; a count of one
in the singular."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from clirkit.cli import main
from clirkit.errors import ClirkitError
from clirkit.experiment import Experiment, run_experiment
from clirkit.experiment.store import staging

# ------------------------------------------------------------------ helpers


def _plain(folder: Path, splits=("dev", "test")) -> str:
    """A ``[collection]`` of plain files in ``folder``: five documents of two words, a query per split."""
    folder.mkdir(parents=True, exist_ok=True)
    words = ["uno", "dos", "tres", "cuatro", "cinco"]
    (folder / "d.tsv").write_text("".join(f"d{i}\t{w} {w}\n" for i, w in enumerate(words)), encoding="utf-8")
    queries, qrels = [], []
    for n, split in enumerate(splits):
        (folder / f"{split}.tsv").write_text(f"q{n}\t{words[n]}\n", encoding="utf-8")
        (folder / f"{split}.qrels").write_text(f"q{n} 0 d{n} 1\n", encoding="utf-8")
        queries.append(f'{split} = "{folder / f"{split}.tsv"}"')
        qrels.append(f'{split} = "{folder / f"{split}.qrels"}"')
    return (
        f'[collection]\ndocuments = "{folder / "d.tsv"}"\nqueries = {{{", ".join(queries)}}}\n'
        f'qrels = {{{", ".join(qrels)}}}\nsource_lang = "en"\ntarget_lang = "es"\n'
    )


def _file(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _interrupted(done: Path, target: Path) -> None:
    """Leave the finished folder ``done`` as the staging folder of ``target`` of a run that was stopped: what an
    interrupted run had made (every artifact), its owner gone."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    os.rename(done, staging(target))
    (staging(target) / ".owner").write_text(str(gone.pid), encoding="ascii")


MINI = """collection = "{mini}"
measures = ["AP"]
report_splits = ["dev", "test"]
{top}
[systems.BM25]
kind = "bm25"
[systems.DT]
kind = "dt"
{boost}
[fusions."BM25+DT"]
systems = ["BM25", "DT"]
"""
BOOST = '[systems.Boost]\nkind = "boost"\nbase = "DT"\nrounds = 10\neval_every = 5\nsignificance = 0\n'


# ------------------------------------------------------------------ 1. a resumed run writes what a fresh run writes


@pytest.mark.parametrize(
    "changed",
    [{"top": 'keep_runs = ["*.test"]', "boost": BOOST}, {"top": "", "boost": ""}],
    ids=["keep_runs", "system removed"],
)
def test_a_resumed_run_leaves_the_folder_a_fresh_run_of_the_file_writes(mini, tmp_path, changed):
    first = _file(tmp_path / "first.toml", MINI.format(mini=mini, top="", boost=BOOST))
    run_experiment(Experiment.read(first), tmp_path / "done", quiet=True)
    assert (tmp_path / "done" / "runs" / "dt.dev.run.gz").exists()
    assert (tmp_path / "done" / "models" / "boost.npz").exists()
    _interrupted(tmp_path / "done", tmp_path / "resumed")
    second = _file(tmp_path / "second.toml", MINI.format(mini=mini, **changed))
    run_experiment(Experiment.read(second), tmp_path / "resumed", quiet=True)
    run_experiment(Experiment.read(second), tmp_path / "fresh", quiet=True)
    resumed, fresh = _tree(tmp_path / "resumed"), _tree(tmp_path / "fresh")
    assert sorted(resumed) == sorted(fresh)
    assert resumed == fresh
    assert not staging(tmp_path / "resumed").exists()


# ------------------------------------------------------------------ 5. the kappa sweep: each curve its own measure


def test_the_kappa_sweep_figure_labels_each_curve_with_its_fusions_measure(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from clirkit import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figures.append(fig) or Path(path))
    text = 'measures = ["AP", "nDCG@10"]\n' + _plain(tmp_path / "c")
    text += '[systems.A]\nkind = "bm25"\n[systems.B]\nkind = "bm25"\nk1 = 0.5\n'
    text += '[fusions.FA]\nsystems = ["A", "B"]\n[fusions.FB]\nsystems = ["B", "A"]\nmeasure = "nDCG@10"\n'
    run_experiment(Experiment.read(_file(tmp_path / "k.toml", text)), tmp_path / "out", quiet=True)
    (ax,) = [f.axes[0] for f in figures if "interpolation weight" in f.axes[0].get_title()]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[0].startswith("FA, dev AP (best at ") and labels[1].startswith("FB, dev nDCG@10 (best at ")
    assert ax.get_title() == "dev score by interpolation weight"
    assert ax.get_ylabel() == "dev score (mean over queries)"


def test_a_kappa_sweep_of_one_measure_is_labelled_as_before(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from clirkit import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figures.append(fig) or Path(path))
    sweeps = {"F": ([0.0, 1.0], [0.2, 0.3]), "G": ([0.0, 1.0], [0.4, 0.1])}
    plots.kappa_sweep(sweeps, measure={"F": "AP", "G": "AP"}, path=tmp_path / "k.png")
    ax = figures[0].axes[0]
    assert ax.get_title() == "dev AP by interpolation weight" and ax.get_ylabel() == "AP (mean over queries)"
    assert [t.get_text() for t in ax.get_legend().get_texts()][0] == "F (best at 1: 0.3000)"
    with pytest.raises(ClirkitError, match="no measure for the sweep 'G'"):
        plots.kappa_sweep(sweeps, measure={"F": "AP"}, path=tmp_path / "k.png")


# ------------------------------------------------------------------ 6, 7. eval_every beyond rounds, when read


@pytest.mark.parametrize("eval_every", [200, 100])  # 100: the default value, written
def test_eval_every_written_beyond_rounds_is_refused_when_the_file_is_read(eval_every):
    boost = {"kind": "boost", "rounds": 50, "eval_every": eval_every}
    with pytest.raises(ClirkitError) as caught:
        Experiment.from_dict({"collection": "nave-en-es", "systems": {"Boost": boost}}, source="x.toml")
    assert str(caught.value) == (
        f"x.toml: system 'Boost': eval_every {eval_every} is more than rounds 50: the dev queries would be scored "
        "only after the last round (no early stopping); give eval_every <= rounds, or leave it out"
    )
    Experiment.from_dict({"collection": "nave-en-es", "systems": {"Boost": {**boost, "rounds": eval_every}}})
    Experiment.from_dict({"collection": "nave-en-es", "systems": {"Boost": {"kind": "boost", "eval_every": 100}}})


# ------------------------------------------------------------------ 6. a run file's rows its readers refuse


def _run_file(mini: Path, path: Path, *, score: float, unknown_in: str | None = None) -> dict[str, int]:
    """A run of every query of ``mini`` (train, dev, test, in that order), five rows each scoring ``score`` minus
    the rank; ``unknown_in``: the third line of that split names a document the collection lacks. Returns each
    split's first line."""
    from clirkit import datasets

    c = datasets.load(str(mini))
    docids = c.documents()[0][:5]
    lines, first = [], {}
    for split in ("train", "dev", "test"):
        first[split] = len(lines) + 1
        for q in c.queries(split):
            lines += [f"{q} Q0 {d} {r + 1} {score - r} ext\n" for r, d in enumerate(docids)]
    if unknown_in is not None:
        at = first[unknown_in] + 1  # (from 0: the split's third line)
        lines[at] = f"{lines[at].split()[0]} Q0 NOPE.1.1 9999 0.001 ext\n"
    path.write_text("".join(lines), encoding="utf-8")
    return first


RUN_BASE = """collection = "{mini}"
measures = ["AP"]
[systems.R]
kind = "run"
file = "{file}"
[systems.BM25]
kind = "bm25"
{reader}
"""
BOOSTED = '[systems.B]\nkind = "boost"\nbase = "R"\nrounds = 10\neval_every = 5\nsignificance = 0\n'
FLAT = '[fusions.F]\nsystems = ["R", "BM25"]\nweights = [0.5, 0.5]\ntransform = "none"\n'


def _refused(path: Path, out: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["run", str(path), "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not staging(out).exists() and not out.exists()  # before any work
    return err


def test_a_base_run_files_negative_score_is_refused_at_its_line_before_any_work(mini, tmp_path, capsys):
    _run_file(mini, tmp_path / "neg.run", score=-50.0)
    exp = _file(tmp_path / "b.toml", RUN_BASE.format(mini=mini, file="neg.run", reader=BOOSTED))
    err = _refused(exp, tmp_path / "out", capsys)
    assert f"system 'R': {tmp_path / 'neg.run'}:1: score -50.0 (query " in err
    assert "is negative: system 'B' boosts from this run (its base), and a base ranker's scores must be" in err


def test_a_base_run_files_unknown_document_is_refused_at_its_line_before_any_work(mini, tmp_path, capsys):
    first = _run_file(mini, tmp_path / "nope.run", score=50.0, unknown_in="dev")
    exp = _file(tmp_path / "b.toml", RUN_BASE.format(mini=mini, file="nope.run", reader=BOOSTED))
    err = _refused(exp, tmp_path / "out", capsys)
    assert (
        f"system 'R': {tmp_path / 'nope.run'}:{first['dev'] + 2}: document 'NOPE.1.1' is not among the documents: "
        "system 'B' boosts from this run (its base)"
    ) in err


def test_an_untransformed_fusions_negative_run_file_score_is_refused_at_its_line(mini, tmp_path, capsys):
    first = _run_file(mini, tmp_path / "neg.run", score=-50.0)
    exp = _file(tmp_path / "f.toml", RUN_BASE.format(mini=mini, file="neg.run", reader=FLAT))
    err = _refused(exp, tmp_path / "out", capsys)
    assert f"{tmp_path / 'neg.run'}:{first['dev']}: score -50.0 (query " in err  # the train rows are not read
    assert "is negative: fusion 'F' sums the scores as they are (transform = \"none\")" in err


def test_a_negative_run_file_that_no_reader_refuses_runs(mini, tmp_path):
    _run_file(mini, tmp_path / "neg.run", score=-50.0)
    shifted = FLAT.replace('transform = "none"\n', "")  # auto: shifted per query
    exp = _file(tmp_path / "f.toml", RUN_BASE.format(mini=mini, file="neg.run", reader=shifted))
    assert main(["run", str(exp), "-o", str(tmp_path / "out"), "-q"]) == 0


# ------------------------------------------------------------------ 6. a base run named by its system


def test_a_base_systems_negative_scores_are_said_of_the_system_the_base_names(mini, tmp_path, monkeypatch):
    from clirkit.experiment.kinds import KINDS
    from clirkit.run import Run
    from clirkit.systems import BM25Search

    class Lowered(BM25Search):
        """BM25 less 1000: the same ranking, every score negative."""

        default_tag = "lowered"

        def search(self, topics, **keywords):
            run = super().search(topics, **keywords)
            return Run(run.qids, run.docids, run.scores - 1000.0, tag=run.tag)

    monkeypatch.setitem(KINDS, "lowered", Lowered)
    text = f'collection = "{mini}"\nmeasures = ["AP"]\n[systems.N]\nkind = "lowered"\n'
    text += BOOSTED.replace('base = "R"', 'base = "N"')
    with pytest.raises(ClirkitError) as caught:
        run_experiment(Experiment.read(_file(tmp_path / "n.toml", text)), tmp_path / "out", quiet=True)
    assert str(caught.value).startswith(f"{tmp_path / 'n.toml'}: system 'B': base 'N': the base ")
    assert "(tag 'N')" in str(caught.value) and "negative scores" in str(caught.value)  # tagged as the runner's runs


# ------------------------------------------------------------------ 8. weights that all tied on dev


def test_a_fusion_whose_every_weight_tied_on_dev_says_so_in_the_report(tmp_path, monkeypatch):
    from clirkit.fusion.system import Fusion

    fit = Fusion.fit

    def tied_fit(self, *args, **keywords):
        fitted = fit(self, *args, **keywords)
        self.weights_tied_ = self.weights is None  # (the fitted attribute the fusion's tuning sets)
        return fitted

    monkeypatch.setattr(Fusion, "fit", tied_fit)
    text = 'measures = ["AP"]\nfigures = false\n' + _plain(tmp_path / "c")
    text += '[systems.A]\nkind = "bm25"\n[systems.B]\nkind = "bm25"\nk1 = 0.5\n'
    text += '[fusions.F]\nsystems = ["A", "B"]\n[fusions.G]\nsystems = ["A", "B"]\nweights = [0.5, 0.5]\n'
    result = run_experiment(Experiment.read(_file(tmp_path / "t.toml", text)), tmp_path / "out", quiet=True)
    (f_line,) = [line for line in result.text.splitlines() if line.startswith("  F: ")]
    assert f_line.startswith("  F: weights ") and "(every weight tied on dev: dev AP " in f_line
    assert f_line.endswith("; the dev score did not choose these weights)")
    assert "  G: weights 0.5, 0.5" in result.text.splitlines()


# ------------------------------------------------------------------ 13. smaller ones


def test_dev_queries_on_a_collection_without_a_dev_split_is_refused(tmp_path, capsys):
    text = "dev_queries = 5\n" + _plain(tmp_path / "c", splits=("test",)) + '[systems.A]\nkind = "bm25"\n'
    err = _refused(_file(tmp_path / "d.toml", text), tmp_path / "out", capsys)
    assert "d.toml: dev_queries applies to the dev split, and " in err
    assert "has none (its splits: test): remove dev_queries" in err


def test_gains_with_a_single_system_leave_no_empty_section(tmp_path):
    text = 'measures = ["AP"]\ngains = ["AP"]\nfigures = false\n' + _plain(tmp_path / "c")
    result = run_experiment(
        Experiment.read(_file(tmp_path / "g.toml", text + '[systems.A]\nkind = "bm25"\n')), tmp_path / "out", quiet=True
    )
    assert "gains over" not in result.text and "gains over" not in (tmp_path / "out" / "report.md").read_text()


def test_one_dev_query_is_counted_in_the_singular(tmp_path):
    text = 'measures = ["AP"]\nfigures = false\n' + _plain(tmp_path / "c")
    text += '[systems.A]\nkind = "bm25"\n[systems.B]\nkind = "bm25"\nk1 = 0.5\n[fusions.F]\nsystems = ["A", "B"]\n'
    result = run_experiment(Experiment.read(_file(tmp_path / "p.toml", text)), tmp_path / "out", quiet=True)
    assert "dev AP (1 query): A " in result.text and "tuned and learned (dev: 1 query):" in result.text


def test_an_empty_variant_is_refused_as_any_variant_the_collection_lacks(tmp_path, capsys):
    named = _file(tmp_path / "n.toml", 'collection = "nave-en-es"\n[systems.A]\nkind = "bm25"\n')
    with pytest.raises(ClirkitError, match=r"n\.toml: collection nave-en-es has no variant '' \(choose standard"):
        Experiment.read(named, variant="")
    plain = _file(tmp_path / "p.toml", _plain(tmp_path / "c") + '[systems.A]\nkind = "bm25"\n')
    assert main(["run", str(plain), "--variant", "", "-o", str(tmp_path / "out"), "-q"]) == 2
    assert "the variant '' applies to a known collection, not to the file's [collection]" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_an_unknown_variant_in_the_file_is_said_with_the_files_name(tmp_path):
    path = _file(tmp_path / "v.toml", 'collection = "nave-en-es"\nvariant = "nope"\n[systems.A]\nkind = "bm25"\n')
    with pytest.raises(ClirkitError) as caught:
        Experiment.read(path)
    assert str(caught.value) == f"{path}: collection nave-en-es has no variant 'nope' (choose standard, strict)"


def test_keep_runs_names_a_run_whose_name_holds_a_bracket_as_it_is_written(tmp_path):
    from clirkit.experiment.keepruns import matches_a_run

    assert matches_a_run("PSQ[2].test", ["DT", "PSQ[2]"]) and matches_a_run("PSQ[2].*", ["PSQ2"])
    text = 'measures = ["AP"]\nfigures = false\nkeep_runs = ["B[2].test"]\n' + _plain(tmp_path / "c")
    text += '[systems.A]\nkind = "bm25"\n[systems."B[2]"]\nkind = "bm25"\nk1 = 0.5\n'
    run_experiment(Experiment.read(_file(tmp_path / "k.toml", text)), tmp_path / "out", quiet=True)
    assert sorted(os.listdir(tmp_path / "out" / "runs")) == ["b-2.test.run.gz", "b-2.test.run.gz.json"]
