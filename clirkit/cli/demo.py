"""``clirkit demo``: the whole cross-language pipeline on a bundled or shared collection."""
from __future__ import annotations

from clirkit.cli.common import add_jobs, add_quiet, add_verb

MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10")


def add_parser(sub) -> None:
    p = add_verb(sub, "demo", "train a translation table, index, run DT and PSQ, evaluate (default: the "
                 "bundled nave-en-es collection, English queries -> Spanish verses)", run)
    p.add_argument("--collection", default="nave-en-es", help="collection name (see clirkit.datasets.names())")
    p.add_argument("--variant", default="standard", help="collection variant (nave-en-es: standard, strict)")
    p.add_argument("--split", default="test", help="query split to evaluate")
    p.add_argument("-o", "--output-dir", default="clirkit-demo", help="folder for the table, index and runs")
    p.add_argument("--iterations", type=int, default=5, help="IBM Model 1 EM iterations")
    add_jobs(p, default=2)
    add_quiet(p)


def run(args) -> int:
    from pathlib import Path

    from clirkit import datasets, pipeline
    from clirkit.formats import write_run
    from clirkit.progress import say
    from clirkit.translation import save_table

    out = Path(args.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    c = datasets.load(args.collection, variant=args.variant)
    steps = pipeline.Steps()
    quiet = args.quiet
    say(f"{c.name} ({c.variant}): {c.source_lang} queries -> {c.target_lang} documents", quiet=quiet)

    with steps.time("translation table (IBM Model 1)"):
        source, target = c.parallel()
        source_tokens = pipeline.tokenize(source, c.source_lang, quiet=quiet, jobs=args.jobs,
                                          desc="tokenizing source")
        target_tokens = pipeline.tokenize(target, c.target_lang, quiet=quiet, jobs=args.jobs,
                                          desc="tokenizing target")
        say(f"training IBM Model 1 on {len(source)} sentence pairs, {args.iterations} iterations", quiet=quiet)
        table = pipeline.train_table(source_tokens, target_tokens, iterations=args.iterations, quiet=quiet)
        save_table(table, out / "table.npz")
        analyzer = pipeline.query_analyzer(c.source_lang, source_tokens)
    with steps.time("index"):
        docids, texts = c.documents()
        say(f"indexing {len(docids)} documents", quiet=quiet)
        index = pipeline.index_documents(docids, texts, c.target_lang, quiet=quiet, jobs=args.jobs)
        index.save(out / "index.npz")
    queries, qrels, excluded = c.queries(args.split), c.qrels(args.split), c.excluded(args.split)
    runs = {}
    for name, make in (("DT", pipeline.dt_run), ("PSQ", pipeline.psq_run)):
        with steps.time(f"{name} retrieval"):
            runs[name] = pipeline.drop_excluded(make(index, table, queries, analyzer, quiet=quiet), excluded)
            write_run(runs[name], out / f"{name.lower()}.{args.split}.run")

    report = [f"{c.name} ({c.variant}), {args.split} split: {len(queries)} queries, {len(docids)} documents",
              "", pipeline.score_table(runs, qrels, MEASURES), "",
              "time: " + ", ".join(f"{k} {v:.1f} s" for k, v in steps.seconds.items())]
    text = "\n".join(report)
    print(text)
    (out / "results.txt").write_text(text + "\n", encoding="utf-8")
    say(f"runs, index, table and results in {out}/", quiet=quiet)
    return 0
