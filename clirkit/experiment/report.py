"""The report of an experiment: ``results.txt`` (what ``clirkit run`` prints), ``report.md`` and the figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clirkit.errors import ClirkitError, counted
from clirkit.experiment.store import file_name

if TYPE_CHECKING:
    from clirkit.experiment.runner import Runner


def write_report(runner: Runner) -> str:
    """Write report.md, results.txt and the figures; return the text the command prints: a table for each of
    the file's ``report_splits`` (the test split's first), the systems' dev scores and what was learned."""
    from clirkit.fileio import atomic_writer
    from clirkit.progress import say
    from clirkit.report import score_table

    res = runner.resources
    exp, c, folder = runner.exp, res.c, res.out.folder
    names = exp.run_names()
    empty = [  # a legitimate run of no rows (a floor finding nothing), scored 0 on each query as `clirkit eval` does
        f"{n}: no document for {_the_queries(len(res.topics(made)), made)}: it scores 0 on each judged query"
        for made in runner.splits
        for n in names
        if not len(res.runs(made).packed(n))
    ]
    baseline = exp.baseline or names[0]
    n_docs = len(res.documents()) if res.documents_read() else c.counts.get("documents", "?")
    lines: list[str] = []
    md = [f"# {exp.name}", ""]
    reports = {}
    for split in exp.report_splits:
        runs, qrels, n_queries = _split(runner, split, names)
        what = _heading(runner, split)
        queries = "1 query" if n_queries == 1 else f"{n_queries} queries"
        head = f"{c.name} ({c.variant}), {what}: {queries}, {n_docs} documents"
        label = f"{c.name} {'dev+test' if split == 'all' else split}"
        gains = exp.gains if len(names) > 1 else ()  # nothing to compare the baseline with: no section
        table = score_table(runs, qrels, exp.measures, baseline=baseline, seed=exp.seed, qrels_label=label, gains=gains)
        lines += ([""] if lines else []) + [head, "", table]
        reports[split] = _report(runs, qrels, names, baseline, runner, label)
        md += [head, "", reports[split][1].markdown()]
    dev_line = _dev_scores(runner)
    if dev_line:
        lines += ["", dev_line]
    if runner.notes:
        dev = f" (dev: {counted(len(res.topics('dev')), 'query', 'queries')})" if "dev" in runner.splits else ""
        lines += ["", f"tuned and learned{dev}:"] + [f"  {n}" for n in runner.notes]
    if empty:
        lines += [""] + empty
        say("\n".join(empty), quiet=res.quiet)
    text = "\n".join(lines)  # step timings go to stderr (run_experiment), so the files are byte-identical
    with atomic_writer(folder / "results.txt") as fh:
        fh.write(text + "\n")
    if exp.figures and "test" not in reports:
        reports["test"] = _report(
            _packed(res, "test", names), res.qrels("test"), names, baseline, runner, f"{c.name} test"
        )
    figures = _figures(runner, names, baseline, *reports["test"]) if exp.figures else []
    md += [dev_line, ""] if dev_line else []
    md += [f"- {line}" for line in empty] + [""] if empty else []
    if runner.notes:
        md += ["## Tuned and learned", ""] + [f"- {n}" for n in runner.notes] + [""]
    if figures:
        md += ["## Figures", ""] + [f"![{title}]({path.name})" for title, path in figures] + [""]
    with atomic_writer(folder / "report.md") as fh:
        fh.write("\n".join(md))
    res.out.wrote(folder / "results.txt", folder / "report.md", *(path for _, path in figures))
    return text


def _the_queries(n: int, split: str) -> str:
    """``any of the 12 test queries``, ``the 1 test query``."""
    return f"the 1 {split} query" if n == 1 else f"any of the {n} {split} queries"


def _report(runs, qrels, names: list[str], baseline: str, runner: Runner, label: str):
    """``(evaluations, Report)`` of ``runs`` (by name) against ``qrels``."""
    from clirkit.metrics import evaluate
    from clirkit.report import Report

    exp = runner.exp
    evaluations = [evaluate(runs[n], qrels, list(exp.measures), names="given") for n in names]
    return evaluations, Report(names, evaluations, baseline=names.index(baseline), seed=exp.seed, qrels=label)


def _heading(runner: Runner, split: str) -> str:
    """What the table of ``split`` holds, as the report heads it: with ``dev_queries``, the seeded sample of the dev
    split, which the tuning, the dev runs and the ``all`` table hold too (:meth:`Artifacts.topics
    <clirkit.experiment.artifacts.Artifacts.topics>`)."""
    res = runner.resources
    sampled = "dev" in res.splits and len(res.topics("dev")) < len(res.c.queries("dev"))
    if split == "all":
        return f"all queries ({'the dev sample' if sampled else 'dev'} and test)"
    if split == "dev" and sampled:
        return f"dev split sample (dev_queries = {runner.exp.dev_queries} of its {len(res.c.queries('dev'))} queries)"
    return f"{split} split"


def _split(runner: Runner, split: str, names: list[str]):
    """``({name: PackedRun}, qrels, number of queries)`` of ``split``; ``all``: dev and test together."""
    import numpy as np

    from clirkit.packedrun import PackedRun
    from clirkit.run import Qrels

    res = runner.resources
    if split != "all":
        return _packed(res, split, names), res.qrels(split), len(res.topics(split))
    dev, test = res.topics("dev"), res.topics("test")
    shared = sorted(set(dev) & set(test))
    if shared:
        raise ClirkitError(f"report_splits: the dev and test splits share query {shared[0]}: no table of all queries")
    runs = {}
    for n in names:
        parts = [res.runs("dev").packed(n), res.runs("test").packed(n)]
        runs[n] = PackedRun.concat(parts, tag=parts[1].tag)
    parts = [res.qrels("dev"), res.qrels("test")]
    qrels = Qrels(*(np.concatenate([getattr(q, a) for q in parts]) for a in ("qids", "docids", "rels")))
    return runs, qrels, len(dev) + len(test)


def _packed(res, split: str, names: list[str]) -> dict:
    """``{name: PackedRun}`` of ``split``'s runs: evaluated as they are kept, never unpacked (the id strings of a
    deep run of many queries would take gigabytes)."""
    return {n: res.runs(split).packed(n) for n in names}


def _dev_scores(runner: Runner) -> str:
    """One line with each system's dev score on the first measure: what a choice among settings rests on (the
    fusions are tuned on it, and left out)."""
    from clirkit.metrics import evaluate

    res = runner.resources
    runs = res.runs("dev")
    names = [n for n in runs if n in runner.exp.systems]
    if not names:
        return ""
    measure = runner.exp.measures[0]
    scores = [
        f"{name} {evaluate(runs.packed(name), res.qrels('dev'), [measure], names='given').mean()[measure]:.4f}"
        for name in names
    ]
    return f"dev {measure} ({counted(len(res.topics('dev')), 'query', 'queries')}): " + ", ".join(scores)


def _figures(runner: Runner, names: list[str], baseline: str, evaluations, report) -> list:
    """The PNG figures: per-query differences against the baseline on the test split (first measure), kappa
    sweeps, curves."""
    from clirkit import plots

    folder, out = runner.resources.out.folder, []
    measure = runner.exp.measures[0]
    base = names.index(baseline)
    base_ev = evaluations[base]
    for i, name in enumerate(names):
        if i == base:
            continue
        test = report.tests.get((i, measure))
        path = folder / f"diff-{file_name(name)}-vs-{file_name(baseline)}.png"
        plots.per_query_difference(
            base_ev.qids,
            evaluations[i].column(measure),
            base_ev.column(measure),
            name=name,
            baseline=baseline,
            measure=measure,
            p_value=None if test is None else test.p_value,
            path=path,
        )
        out.append((f"{name} - {baseline}, {measure} per query", path))
    sweeps = runner.sweeps
    two_way = {n: (s.kappas, s.scores) for n, s in sweeps.items() if hasattr(s, "kappas")}
    two_way.update(
        {
            n: ([float(w[0]) for w in s.weights], s.scores)
            for n, s in sweeps.items()
            if not hasattr(s, "kappas") and len(s.weights[0]) == 2
        }
    )
    if two_way:  # each curve's measure is its fusion's own
        measures = {n: str(getattr(runner.systems[n], "measure", "AP")) for n in two_way}
        path = plots.kappa_sweep(two_way, measure=measures, path=folder / "kappa-sweep.png")
        out.append(("dev score by the weight of the first system", path))
    for title, spec in runner.curves.items():
        path = folder / f"curve-{file_name(title.split(' (')[0])}.png"
        plots.training_curves(spec["curves"], xlabel=spec["xlabel"], ylabel=spec["ylabel"], path=path, title=title)
        out.append((title, path))
    return out
