"""``clirkit scs-train -o MODEL``: train the SCS neural model (SPEC §7).

Training data is either a bundled/known collection (``--collection``, its
``--split``) or three files: queries, documents and graded qrels.
"""
from __future__ import annotations

from clirkit.cli.common import add_jobs, add_quiet, add_seed, add_verb


def add_data_options(p, split_default: str) -> None:
    """``--collection/--variant/--split`` or ``--queries/--documents`` (shared by scs-train and scs-score)."""
    g = p.add_argument_group("data (a collection, or files)")
    g.add_argument("--collection", help="a known collection, e.g. nave-en-es (see clirkit.datasets)")
    g.add_argument("--variant", default=None, help="collection variant (default: the collection's first)")
    g.add_argument("--split", default=split_default, help="collection split of the queries (and qrels)")
    g.add_argument("--queries", help="queries file (qid TAB text, JSONL or TREC topics)")
    g.add_argument("--documents", help="documents file (docid TAB text or JSONL)")


def load_data(args, *, need_qrels: bool):
    """``(queries, (docids, texts), qrels or None, query_lang, doc_lang)`` from the options."""
    from clirkit.errors import ClirkitError

    if args.collection:
        if args.queries or args.documents or getattr(args, "qrels", None):
            raise ClirkitError("give either --collection or --queries/--documents files, not both")
        from clirkit import datasets

        variant = args.variant or datasets.variants(args.collection)[0]
        c = datasets.load(args.collection, variant=variant)
        return (c.queries(args.split), c.documents(), c.qrels(args.split) if need_qrels else None,
                c.source_lang, c.target_lang)
    missing = [name for name, value in (("--queries", args.queries), ("--documents", args.documents),
                                        ("--qrels", getattr(args, "qrels", True))) if not value]
    if missing:
        raise ClirkitError(f"give --collection, or {', '.join(missing)}")
    from clirkit.formats import read_documents, read_qrels, read_queries

    qrels = read_qrels(args.qrels) if need_qrels else None
    return read_queries(args.queries), read_documents(args.documents), qrels, None, None


def add_parser(sub) -> None:
    p = add_verb(sub, "scs-train", "train the SCS model (smooth cosine, SOSL) on graded judgments", run)
    add_data_options(p, "train")
    p.add_argument("--qrels", help="graded judgments of the training queries (qid iter docid rel)")
    p.add_argument("-o", "--output", required=True, help="model file to write (.npz)")
    m = p.add_argument_group("model")
    m.add_argument("--dim", type=int, default=64, help="embedding dimension")
    m.add_argument("--eps", type=float, default=1.0, help="smoothing of the cosine (0: plain cosine)")
    m.add_argument("--loss", choices=("sosl", "mse", "hinge", "logistic", "exp"), default="sosl", help="loss")
    m.add_argument("--thresholds", type=float, nargs="+", default=[0.2, 0.7],
                   help="SOSL inner thresholds, one fewer than the grades")
    m.add_argument("--mse-targets", type=float, nargs="+", default=None,
                   help="MSE target per grade (default: middle of each SOSL segment)")
    m.add_argument("--margin", type=float, default=0.2, help="hinge loss margin")
    m.add_argument("--pair-weight", choices=("uniform", "grade"), default="uniform",
                   help="pairwise losses: weight of a (d+, d-) pair (grade: grade difference)")
    m.add_argument("--max-pairs-per-query", type=int, default=100,
                   help="pairwise losses: sample at most this many (d+, d-) pairs per query (0: all)")
    m.add_argument("--query-vectors", help="word vectors of the query language (word v1 ... v_dim per line)")
    m.add_argument("--doc-vectors", help="word vectors of the document language")
    m.add_argument("--init-scale", type=float, default=0.1, help="std of the random embedding initialization")
    m.add_argument("--query-lang", default="en", help="query language (files only; collections know theirs)")
    m.add_argument("--doc-lang", default="es", help="document language (files only)")
    t = p.add_argument_group("training")
    t.add_argument("--epochs", type=int, default=10, help="passes over the training pairs")
    t.add_argument("--lr", type=float, default=0.01, help="Adam learning rate")
    t.add_argument("--batch-size", type=int, default=128, help="pairs per batch")
    t.add_argument("--negatives", type=int, default=40, help="irrelevant documents sampled per query")
    t.add_argument("--dense-adam", action="store_true",
                   help="textbook Adam moving every embedding row every step (default: lazy Adam on the rows "
                        "a batch touches, 3-4x faster)")
    add_seed(p)
    add_jobs(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.progress import say
    from clirkit.scs import SCSModel, read_word_vectors

    queries, documents, qrels, qlang, dlang = load_data(args, need_qrels=True)
    judged = set(qrels.query_ids)
    train = {q: t for q, t in queries.items() if q in judged}
    model = SCSModel(dim=args.dim, eps=args.eps, loss=args.loss, thresholds=args.thresholds,
                     mse_targets=args.mse_targets, margin=args.margin, pair_weight=args.pair_weight,
                     max_pairs_per_query=args.max_pairs_per_query or None, lr=args.lr, batch_size=args.batch_size,
                     epochs=args.epochs, negatives=args.negatives, init_scale=args.init_scale,
                     lazy_adam=not args.dense_adam, query_lang=qlang or args.query_lang,
                     doc_lang=dlang or args.doc_lang, random_state=args.seed)
    qv = read_word_vectors(args.query_vectors, args.dim) if args.query_vectors else None
    dv = read_word_vectors(args.doc_vectors, args.dim) if args.doc_vectors else None
    say(f"scs-train: {len(train)} judged training queries, {len(documents[0])} documents", quiet=args.quiet)
    model.fit(train, documents, qrels, query_vectors=qv, doc_vectors=dv, quiet=args.quiet, jobs=args.jobs)
    model.save(args.output)
    stats = model.training_stats_
    say(f"scs-train: {stats['units']} training units, vocabularies {stats['query_vocabulary']} / "
        f"{stats['doc_vocabulary']}; wrote {args.output}", quiet=args.quiet)
    return 0
