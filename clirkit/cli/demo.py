"""``clirkit demo``: the whole cross-language pipeline on a bundled or shared collection.

Trains an IBM Model 1 table, indexes the documents, runs DT and PSQ, boosts a Boost-1g phrase
table from PSQ (PSQ-Boost: PSQ's scores start the margins, beta tuned on dev; it re-ranks PSQ)
and trains the SCS model on the training queries, aggregates them (weights tuned on the dev
queries, then frozen), and prints the test table with significance against PSQ.
"""
from __future__ import annotations

from clirkit.cli.common import add_jobs, add_quiet, add_seed, add_verb

MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10")


def add_parser(sub) -> None:
    p = add_verb(sub, "demo", "the full pipeline on a collection: IBM Model 1, DT, PSQ, BoostCLIR boosted from PSQ, "
                 "SCS and their aggregates, evaluated (default: the bundled nave-en-es, English queries -> Spanish "
                 "verses)", run)
    p.add_argument("--collection", default="nave-en-es", help="collection name (see clirkit.datasets.names())")
    p.add_argument("--variant", default="standard", help="collection variant (nave-en-es: standard, strict)")
    p.add_argument("-o", "--output-dir", default="clirkit-demo", help="folder for the table, models and runs")
    p.add_argument("--iterations", type=int, default=5, help="IBM Model 1 EM iterations")
    p.add_argument("--baselines-only", action="store_true", help="stop after DT and PSQ")
    g = p.add_argument_group("learned systems (kept small so the demo takes minutes)")
    g.add_argument("--boost-rounds", type=int, default=3000, help="PSQ-Boost boosting rounds (per beta tried)")
    g.add_argument("--boost-queries", type=int, default=0, help="training queries for PSQ-Boost (0: all)")
    g.add_argument("--scs-epochs", type=int, default=2, help="SCS training epochs")
    g.add_argument("--tune-queries", type=int, default=400,
                   help="dev queries (seeded sample) for early stopping and weight tuning (0: all)")
    add_seed(p)
    add_jobs(p, default=2)
    add_quiet(p)


def run(args) -> int:
    from pathlib import Path

    import numpy as np

    from clirkit import datasets, pipeline
    from clirkit.analysis import Analyzer
    from clirkit.formats import write_run
    from clirkit.index import Index
    from clirkit.progress import say
    from clirkit.translation import save_table

    out = Path(args.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    c = datasets.load(args.collection, variant=args.variant)
    steps, quiet = pipeline.Steps(), args.quiet
    say(f"{c.name} ({c.variant}): {c.source_lang} queries -> {c.target_lang} documents", quiet=quiet)

    with steps.time("IBM Model 1"):
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
        doc_tokens = pipeline.tokenize(texts, c.target_lang, quiet=quiet, jobs=args.jobs, desc="tokenizing documents")
        index = Index.from_tokens(docids, doc_tokens, Analyzer(c.target_lang))
        index.save(out / "index.npz")

    splits = ("dev", "test") if "dev" in c.splits and not args.baselines_only else ("test",)
    queries = {s: c.queries(s) for s in splits}
    if "dev" in queries and 0 < args.tune_queries < len(queries["dev"]):  # a seeded sample keeps tuning quick
        dev_ids = list(queries["dev"])
        picked = np.sort(np.random.default_rng(args.seed).choice(len(dev_ids), args.tune_queries, replace=False))
        queries["dev"] = {dev_ids[i]: queries["dev"][dev_ids[i]] for i in picked.tolist()}
    qrels = {s: c.qrels(s).subset(queries[s]) for s in splits}
    runs: dict[str, dict[str, object]] = {s: {} for s in splits}

    def keep(name: str, split: str, run) -> None:
        runs[split][name] = run = pipeline.drop_excluded(run, c.excluded(split))
        write_run(run, out / f"{name.lower().replace('+', '_')}.{split}.run")

    for name, make in (("DT", pipeline.dt_run), ("PSQ", pipeline.psq_run)):
        with steps.time(f"{name} retrieval"):
            for s in splits:
                keep(name, s, make(index, table, queries[s], analyzer, quiet=quiet))

    aggregates = {}
    if not args.baselines_only:
        source_analyzer = Analyzer(c.source_lang)
        tokens = {s: dict(zip(qs, source_analyzer.tokenize_many(list(qs.values())))) for s, qs in
                  {"train": c.queries("train"), **queries}.items()}
        boost_ids = list(tokens["train"])[:args.boost_queries or None]
        with steps.time("PSQ-Boost training"):
            say(f"boosting from PSQ: PSQ over {len(boost_ids)} training queries, then up to {args.boost_rounds} "
                "rounds per beta, beta and rounds chosen on dev", quiet=quiet)
            train = c.queries("train")
            base = pipeline.psq_base_run(index, table, {q: train[q] for q in boost_ids}, analyzer,
                                         excluded=c.excluded("train"), extra=[runs["dev"]["PSQ"]], quiet=quiet)
            boost = pipeline.boost_from_base({q: tokens["train"][q] for q in boost_ids},
                                             c.qrels("train").subset(boost_ids), docids, doc_tokens, base,
                                             dev_tokens=tokens["dev"], dev_qrels=qrels["dev"],
                                             rounds=args.boost_rounds, seed=args.seed, quiet=quiet,
                                             made_by={"system": "PSQ", "steps": "clirkit demo (pipeline.psq_run)"})
            del base
            boost.save(out / "psq-boost.npz")
        with steps.time("PSQ-Boost retrieval"):
            for s in splits:
                keep("PSQ-Boost", s, boost.rerank(runs[s]["PSQ"], tokens[s], docids, doc_tokens, tag="PSQ-Boost"))
        with steps.time("SCS training"):
            say(f"training SCS: {args.scs_epochs} epochs", quiet=quiet)
            scs = pipeline.scs_model(tokens["train"], c.qrels("train"), docids, doc_tokens,
                                     epochs=args.scs_epochs, seed=args.seed, quiet=quiet)
            scs.save(out / "scs.npz")
        with steps.time("SCS retrieval"):
            for s in splits:
                keep("SCS", s, scs.score_tokens(list(tokens[s]), list(tokens[s].values()), docids, doc_tokens,
                                                quiet=quiet))
        with steps.time("aggregation (weights tuned on dev MAP)"):
            for combo in (("DT", "PSQ"), ("PSQ", "SCS"), ("PSQ-Boost", "SCS"), ("PSQ", "PSQ-Boost", "SCS")):
                name = "+".join(combo)
                run_, weights, _ = pipeline.tuned_interpolation([runs["dev"][n] for n in combo],
                                                             [runs["test"][n] for n in combo], qrels["dev"],
                                                             step=0.1 if len(combo) == 2 else 0.2, tag=name)
                keep(name, "test", run_)
                aggregates[name] = weights

    test_runs = runs["test"]
    report = [f"{c.name} ({c.variant}), test split: {len(queries['test'])} queries, {len(docids)} documents",
              "", pipeline.score_table(test_runs, qrels["test"], MEASURES, baseline="PSQ", seed=args.seed,
                                       qrels_label=f"{c.name} test", gains=("AP", "PRES@1000"))]
    if aggregates:
        report += ["", f"interpolation weights (tuned on the MAP of {len(queries['dev'])} dev queries): " + "; ".join(
            f"{n} = {', '.join(f'{w:g}' for w in ws)}" for n, ws in aggregates.items())]
        report += [f"PSQ-Boost: beta {boost.beta:g} (dev MAP by beta: " + ", ".join(
            f"{b} {m:.4f}" for b, m in boost.params["beta_dev_map"].items()) +
            f"), {boost.params['bag_rounds'][0]} rounds, {len(boost)} phrase-table entries"]
    report += ["", "time: " + ", ".join(f"{k} {v:.1f} s" for k, v in steps.seconds.items())]
    text = "\n".join(report)
    print(text)
    (out / "results.txt").write_text(text + "\n", encoding="utf-8")
    say(f"runs, models, index and results in {out}/", quiet=quiet)
    return 0
