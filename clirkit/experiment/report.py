"""The report of an experiment: ``results.txt`` (what ``clirkit run`` prints), ``report.md`` and the figures."""
from __future__ import annotations

from clirkit.experiment.runner import Runner, file_name


def write_report(runner: Runner) -> str:
    """Write report.md, results.txt and the figures; return the text the command prints."""
    from clirkit.fileio import atomic_writer
    from clirkit.metrics import evaluate
    from clirkit.report import Report, score_table

    res = runner.resources
    exp, c, folder = runner.exp, res.c, res.out.folder
    names = exp.run_names()
    baseline = exp.baseline or names[0]
    test_runs = {n: res.runs("test")[n] for n in names}
    qrels = res.qrels("test")
    n_docs = len(res.documents()) if res.documents_read() else c.counts.get("documents", "?")
    head = f"{c.name} ({c.variant}), test split: {len(res.topics('test'))} queries, {n_docs} documents"
    table = score_table(test_runs, qrels, exp.measures, baseline=baseline, seed=exp.seed,
                        qrels_label=f"{c.name} test", gains=exp.gains)
    lines = [head, "", table]
    dev_line = _dev_scores(runner)
    if dev_line:
        lines += ["", dev_line]
    if runner.notes:
        dev = f" (dev: {len(res.topics('dev'))} queries)" if "dev" in runner.splits else ""
        lines += ["", f"tuned and learned{dev}:"] + [f"  {n}" for n in runner.notes]
    text = "\n".join(lines)  # step timings go to stderr (run_experiment), so the files are byte-identical
    with atomic_writer(folder / "results.txt") as fh:
        fh.write(text + "\n")
    evaluations = [evaluate(run, qrels, list(exp.measures), names="given") for run in test_runs.values()]
    report = Report(names, evaluations, baseline=names.index(baseline), seed=exp.seed, qrels=f"{c.name} test")
    figures = _figures(runner, names, baseline, evaluations, report) if exp.figures else []
    md = [f"# {exp.name}", "", head, "", report.markdown()] + ([dev_line, ""] if dev_line else [])
    if runner.notes:
        md += ["## Tuned and learned", ""] + [f"- {n}" for n in runner.notes] + [""]
    if figures:
        md += ["## Figures", ""] + [f"![{title}]({path.name})" for title, path in figures] + [""]
    with atomic_writer(folder / "report.md") as fh:
        fh.write("\n".join(md))
    return text


def _dev_scores(runner: Runner) -> str:
    """One line with each system's dev score on the first measure: what a choice among settings rests on (the
    fusions are tuned on it, and left out)."""
    from clirkit.metrics import evaluate

    res = runner.resources
    runs = {n: r for n, r in res.runs("dev").items() if n in runner.exp.systems}
    if not runs:
        return ""
    measure = runner.exp.measures[0]
    scores = [f"{name} {evaluate(run, res.qrels('dev'), [measure], names='given').mean()[measure]:.4f}"
              for name, run in runs.items()]
    return f"dev {measure} ({len(res.topics('dev'))} queries): " + ", ".join(scores)


def _figures(runner: Runner, names: list[str], baseline: str, evaluations, report) -> list:
    """The PNG figures: per-query differences against the baseline (first measure), kappa sweeps, curves."""
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
        plots.per_query_difference(base_ev.qids, evaluations[i].column(measure), base_ev.column(measure), name=name,
                                   baseline=baseline, measure=measure, p_value=None if test is None else test.p_value,
                                   path=path)
        out.append((f"{name} - {baseline}, {measure} per query", path))
    sweeps = runner.sweeps
    two_way = {n: (s.kappas, s.scores) for n, s in sweeps.items() if hasattr(s, "kappas")}
    two_way.update({n: ([float(w[0]) for w in s.weights], s.scores) for n, s in sweeps.items()
                    if not hasattr(s, "kappas") and len(s.weights[0]) == 2})
    if two_way:
        first = runner.systems[next(iter(two_way))]
        path = plots.kappa_sweep(two_way, measure=getattr(first, "measure", "AP"), path=folder / "kappa-sweep.png")
        out.append(("dev score by the weight of the first system", path))
    for title, spec in runner.curves.items():
        path = folder / f"curve-{file_name(title.split(' (')[0])}.png"
        plots.training_curves(spec["curves"], xlabel=spec["xlabel"], ylabel=spec["ylabel"], path=path, title=title)
        out.append((title, path))
    return out
