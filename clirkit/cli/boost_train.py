"""``clirkit boost-train -o MODEL``: train the BoostCLIR phrase table (SPEC §5).

Training data is a known collection (``--collection``: its train split for the
tuples, its dev split for early stopping) or files: queries, graded qrels,
documents, and optionally dev queries and qrels.

``--base-run`` boosts from a base ranker (SPEC §5): the base system's run over the
training and dev queries (e.g. PSQ's), whose per-query normalized scores start the
margins; the model then re-ranks that system's runs (``boost-rank --candidates``).
"""
from __future__ import annotations


from clirkit.cli.common import add_jobs, add_quiet, add_seed, add_verb


def add_parser(sub) -> None:
    p = add_verb(sub, "boost-train", "train the boosted ranker over hashed bilingual n-gram pairs (BoostCLIR)",
                 run)
    d = p.add_argument_group("data (a collection, or files)")
    d.add_argument("--collection", help="a known collection, e.g. nave-en-es (train split + dev split)")
    d.add_argument("--variant", default=None, help="collection variant (default: the collection's first)")
    d.add_argument("--split", default="train", help="collection split giving the training queries and qrels")
    d.add_argument("--dev-split", default="dev", help="collection split for early stopping ('none': no dev set)")
    d.add_argument("--queries", help="training queries (qid TAB text, JSONL or TREC topics)")
    d.add_argument("--qrels", help="graded judgments of the training queries")
    d.add_argument("--documents", help="documents (docid TAB text or JSONL)")
    d.add_argument("--dev-queries", help="dev queries for early stopping on MAP")
    d.add_argument("--dev-qrels", help="dev judgments")
    d.add_argument("--source-lang", default="en", help="query language (files only; collections know theirs)")
    d.add_argument("--target-lang", default="es", help="document language (files only)")
    d.add_argument("--candidates", help="standalone boosting: a run whose top --candidate-depth non-relevant "
                                        "documents replace the uniform negatives")
    base = p.add_argument_group("boosting from a base ranker")
    base.add_argument("--base-run", nargs="+", metavar="RUN",
                      help="the base system's run(s) over the training and dev queries (e.g. PSQ): boost from it, "
                           "f = beta * score / query max + q^T W d")
    base.add_argument("--beta", type=float, default=None,
                      help="weight of the normalized base scores (default: tuned on dev MAP over --beta-grid)")
    base.add_argument("--beta-grid", type=float, nargs="+", default=None,
                      help="betas tried on dev when --beta is not given (default: BoostRanker's beta_grid)")
    base.add_argument("--hard-negatives", type=int, default=None,
                      help="d- per d+ drawn from the base run's top --candidate-depth, for a d+ the base run "
                           "retrieves, added to the --negatives uniform ones (default: BoostRanker's)")
    x = p.add_argument_group("extra training tuples")
    x.add_argument("--parallel-tuples", action="store_true",
                   help="with --collection: each parallel source sentence is a query whose aligned document "
                        "is relevant (for collections whose documents are the corpus's target side)")
    x.add_argument("--extra-tuples", metavar="FILE",
                   help="more training queries as 'query text TAB document id TAB grade' lines")
    x.add_argument("--parallel-weight", type=float, default=1.0,
                   help="importance of the --parallel-tuples / --extra-tuples tuples relative to the others")
    p.add_argument("-o", "--output", required=True, help="model file to write (.npz)")
    m = p.add_argument_group("features and boosting")
    m.add_argument("--ngram", type=int, choices=(1, 2, 3), default=1,
                   help="n-gram order on both sides: 1 = Boost-1g, 2 = Boost-2g (unigrams and bigrams)")
    m.add_argument("--bits", type=int, default=30, help="hash pairs into 2**bits buckets (memory grows with "
                                                        "the distinct training pairs, not with 2**bits)")
    m.add_argument("--hash-seed", type=int, default=0, help="MurmurHash3 seed")
    m.add_argument("--max-df", type=float, default=1.0,
                   help="drop n-grams in more than this fraction of the queries / documents (1 keeps all)")
    m.add_argument("--content-ngrams", action="store_true",
                   help="also drop the n-grams (n >= 2) that contain a word --max-df drops ('of kish', 'de la')")
    m.add_argument("--doc-weighting", choices=("binary", "idf", "length", "idf-length"), default=None,
                   help="document side of q^T W d: binary (the paper), idf, 1/sqrt(length), or both "
                        "(default: binary standalone, length with --base-run)")
    m.add_argument("--rounds", type=int, default=1000, help="maximum boosting rounds (per bag)")
    m.add_argument("--rule", choices=("exact", "r"), default="exact",
                   help="step rule: exact (argmax (sqrt W+ - sqrt W-)^2) or r (argmax |W+ - W-|)")
    m.add_argument("--eps", type=float, default=None, help="smoothing of the exact step (default 1/tuples)")
    m.add_argument("--eval-every", type=int, default=100, help="score the dev set every N rounds")
    m.add_argument("--patience", type=int, default=0,
                   help="stop after this many dev evaluations without improvement (0: never)")
    t = p.add_argument_group("tuples")
    t.add_argument("--negatives", type=int, default=1, help="sampled d- per relevant d+")
    t.add_argument("--min-grade", type=int, default=1, help="grades >= this are relevant")
    t.add_argument("--grade-pairs", type=int, default=0,
                   help="extra d- per d+ drawn among the query's judged documents of a lower grade")
    t.add_argument("--weighting", choices=("difference", "one", "positive"), default="difference",
                   help="tuple importance D: rel(d+) - rel(d-), 1, or rel(d+)")
    t.add_argument("--max-positives", type=int, default=0, help="at most this many d+ per query (0: all)")
    t.add_argument("--candidate-depth", type=int, default=None,
                   help="ranks of --candidates / --base-run giving hard negatives (default: 1000 with "
                        "--candidates, 100 with --base-run)")
    b = p.add_argument_group("bagging and parallelism")
    b.add_argument("--bags", type=int, default=1, help="bags trained independently and averaged")
    b.add_argument("--bag-fraction", type=float, default=1.0, help="fraction of the tuples in each bag")
    b.add_argument("--bootstrap", action="store_true", help="draw bags with replacement")
    b.add_argument("--backend", choices=("loky", "threading", "dask"), default="loky", help="joblib backend")
    b.add_argument("--scheduler", help="dask scheduler address (with --backend dask), e.g. tcp://host:8786")
    add_jobs(b)
    add_seed(p)
    add_quiet(p)


def _extra(args, collection, docids, texts):
    """``(extra queries, extra qrels)`` from --parallel-tuples and --extra-tuples (``(None, None)`` if neither)."""
    from clirkit.boost.parallel import known_item_queries, merge_queries, read_triples
    from clirkit.errors import ClirkitError

    parts = []
    if args.parallel_tuples:
        if collection is None:
            raise ClirkitError("--parallel-tuples needs --collection (its parallel corpus); with files use "
                               "--extra-tuples")
        sources, targets = collection.parallel()
        parts.append(known_item_queries(sources, collection.parallel_ids(), docids, target_texts=targets,
                                        doc_texts=texts))
    if args.extra_tuples:
        parts.append(read_triples(args.extra_tuples))
    return merge_queries(parts) if parts else (None, None)


def _load(args):
    """``(queries, qrels, (docids, texts), dev_queries, dev_qrels, source_lang, target_lang, collection)``."""
    from clirkit.errors import ClirkitError
    from clirkit.formats import read_documents, read_qrels, read_queries

    if args.collection:
        if args.queries or args.documents or args.qrels or args.dev_queries or args.dev_qrels:
            raise ClirkitError("give either --collection or --queries/--qrels/--documents files, not both")
        from clirkit import datasets

        variant = args.variant or datasets.variants(args.collection)[0]
        c = datasets.load(args.collection, variant=variant)
        dev = args.dev_split if args.dev_split != "none" else None
        return (c.queries(args.split), c.qrels(args.split), c.documents(),
                c.queries(dev) if dev else None, c.qrels(dev) if dev else None, c.source_lang, c.target_lang, c)
    missing = [n for n, v in (("--queries", args.queries), ("--qrels", args.qrels),
                              ("--documents", args.documents)) if not v]
    if missing:
        raise ClirkitError(f"give --collection, or {', '.join(missing)}")
    if bool(args.dev_queries) != bool(args.dev_qrels):
        raise ClirkitError("give both --dev-queries and --dev-qrels, or neither")
    return (read_queries(args.queries), read_qrels(args.qrels), read_documents(args.documents),
            read_queries(args.dev_queries) if args.dev_queries else None,
            read_qrels(args.dev_qrels) if args.dev_qrels else None, args.source_lang, args.target_lang, None)


def run(args) -> int:
    from clirkit.boost import BoostRanker
    from clirkit.errors import ClirkitError
    from clirkit.progress import say

    if args.backend == "dask" and not args.scheduler:
        raise ClirkitError("--backend dask needs --scheduler ADDRESS")
    if args.jobs < 1:
        raise ClirkitError(f"--jobs must be >= 1, got {args.jobs}")
    queries, qrels, (docids, texts), dev_queries, dev_qrels, src_lang, tgt_lang, collection = _load(args)
    from clirkit.formats import read_run

    if args.candidates and args.base_run:
        raise ClirkitError("give --base-run or --candidates, not both (the base run gives the hard negatives)")
    if not args.base_run:
        given = [o for o, v in (("--beta", args.beta), ("--beta-grid", args.beta_grid),
                                ("--hard-negatives", args.hard_negatives)) if v is not None]
        if given:
            raise ClirkitError(f"{', '.join(given)} weigh(s) a base ranker: give --base-run too")
    if args.beta is not None and args.beta_grid is not None:
        raise ClirkitError("give --beta or --beta-grid, not both")
    if args.parallel_weight != 1.0 and not (args.parallel_tuples or args.extra_tuples):
        raise ClirkitError("--parallel-weight weighs --parallel-tuples or --extra-tuples: give one of them")
    candidates = read_run(args.candidates) if args.candidates else None
    base = None
    if args.base_run:
        from clirkit.boost.base import CompactRun

        base = CompactRun.from_runs(read_run(path) for path in args.base_run)
    extra_queries, extra_qrels = _extra(args, collection, docids, texts)
    optional = {k: v for k, v in (("beta_grid", args.beta_grid and tuple(args.beta_grid)),
                                  ("hard_negatives", args.hard_negatives), ("candidate_depth", args.candidate_depth),
                                  ("doc_weighting", args.doc_weighting)) if v is not None}
    ranker = BoostRanker(
        ngram=args.ngram, rounds=args.rounds, rule=args.rule, bits=args.bits, hash_seed=args.hash_seed,
        eps=args.eps, negatives=args.negatives, min_grade=args.min_grade, grade_pairs=args.grade_pairs,
        weighting=args.weighting, max_positives=args.max_positives, bags=args.bags, bag_fraction=args.bag_fraction,
        bootstrap=args.bootstrap, eval_every=args.eval_every, patience=args.patience, jobs=args.jobs,
        backend=args.backend, scheduler=args.scheduler, source_lang=src_lang, target_lang=tgt_lang,
        max_df=args.max_df, frequent_word_ngrams=not args.content_ngrams, base=base, beta=args.beta,
        parallel_weight=args.parallel_weight, random_state=args.seed, quiet=args.quiet, **optional)
    ranker.fit(queries, qrels, docids, texts, dev_queries=dev_queries, dev_qrels=dev_qrels,
               candidates=candidates, extra_queries=extra_queries, extra_qrels=extra_qrels,
               base_made_by={"runs": [str(p) for p in args.base_run]} if base else None)
    model = ranker.model_
    model.save(args.output)
    rounds = model.params["bag_rounds"]
    beta = f", beta {model.beta:g}" if model.from_base else ""
    say(f"boost-train: {len(model)} phrase-table entries from {len(rounds)} bag(s) "
        f"({', '.join(map(str, rounds))} rounds kept{beta}) -> {args.output}", quiet=args.quiet)
    return 0
