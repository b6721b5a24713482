"""``clirkit boost-train -o MODEL``: train the BoostCLIR phrase table (SPEC §5).

Training data is a known collection (``--collection``: its train split for the
tuples, its dev split for early stopping) or files: queries, graded qrels,
documents, and optionally dev queries and qrels.

``--base-run`` boosts from a base ranker (SPEC §5): the base system's run over the
training and dev queries (e.g. PSQ's), whose per-query normalized scores start the
margins; the model then re-ranks that system's runs (``boost-rank --candidates``).
"""

from __future__ import annotations

from clirkit.cli.common import (
    add_analysis_options,
    add_jobs,
    add_language_options,
    add_quiet,
    add_seed,
    add_side_stopword_options,
    add_verb,
    analyzers_of,
    finite_float,
    param_type,
)
from clirkit.cli.data import add_data_options, assumed_languages, load_data


def add_parser(sub) -> None:
    from clirkit.boost import BoostRanker as B
    from clirkit.boost.base import MAX_BETA
    from clirkit.cli.params import add_param
    from clirkit.parallel import BACKENDS

    p = add_verb(sub, "boost-train", "train the boosted ranker over hashed bilingual n-gram pairs (BoostCLIR)", run)
    d = add_data_options(p, "train", qrels="graded judgments of the training queries", dev=True)
    add_language_options(d, files_only=True)
    analysis = p.add_argument_group("analysis of the queries and documents")
    add_analysis_options(analysis, stopword_files=False)
    add_side_stopword_options(analysis)
    d.add_argument(
        "--candidates",
        help="standalone boosting: a run whose top --candidate-depth non-relevant "
        "documents replace the uniform negatives",
    )
    base = p.add_argument_group("boosting from a base ranker")
    base.add_argument(
        "--base-run",
        nargs="+",
        metavar="RUN",
        help="the base system's run(s) over the training and dev queries (e.g. PSQ): boost from it, "
        "f = beta * score / query max + q^T W d",
    )
    add_param(
        base,
        B,
        "beta",
        "--beta",
        type=param_type(B, "beta"),
        help="weight of the normalized base scores (none: tuned on dev MAP over --beta-grid)",
    )
    add_param(
        base,
        B,
        "beta_grid",
        "--beta-grid",
        type=finite_float(0, MAX_BETA),
        nargs="+",
        help="betas tried on dev without --beta",
    )
    add_param(
        base,
        B,
        "significance",
        "--significance",
        type=param_type(B, "significance"),
        help="the level of the paired randomization test the boosted model must reach on the dev queries "
        "against the base alone to keep its rounds, else it ranks as the base (none or 0: keep the "
        "rounds early stopping chose)",
    )
    add_param(
        base,
        B,
        "hard_negatives",
        "--hard-negatives",
        type=param_type(B, "hard_negatives"),
        help="d- per d+ drawn from the base run's top --candidate-depth, for a d+ the base run retrieves, "
        "added to the --negatives uniform ones",
    )
    x = p.add_argument_group("extra training tuples")
    x.add_argument(
        "--parallel-tuples",
        action="store_true",
        help="with --collection: each parallel source sentence is a query whose aligned document "
        "is relevant (for collections whose documents are the corpus's target side)",
    )
    x.add_argument(
        "--extra-tuples", metavar="FILE", help="more training queries as 'query text TAB document id TAB grade' lines"
    )
    add_param(
        x,
        B,
        "parallel_weight",
        "--parallel-weight",
        type=param_type(B, "parallel_weight"),
        help="importance of the --parallel-tuples / --extra-tuples tuples relative to the others",
    )
    p.add_argument("-o", "--output", required=True, help="model file to write (.npz)")
    m = p.add_argument_group("features and boosting")
    add_param(
        m,
        B,
        "ngram",
        "--ngram",
        type=param_type(B, "ngram"),
        help="n-gram order on both sides: 1 = Boost-1g, 2 = Boost-2g (unigrams and bigrams), 3 = unigrams to trigrams",
    )
    add_param(
        m,
        B,
        "bits",
        "--bits",
        type=param_type(B, "bits"),
        help="hash pairs into 2**bits buckets (memory: 16 bytes a bucket holding pairs, at most --max-buckets, and "
        "2**bits / 6.4 bytes when the pairs are many)",
    )
    add_param(
        m,
        B,
        "max_buckets",
        "--max-buckets",
        type=param_type(B, "max_buckets"),
        help="the most buckets given boosting state (16 bytes each): past it, those of most pair occurrences are "
        "kept and the others' pairs left out (none: all)",
    )
    add_param(m, B, "hash_seed", "--hash-seed", type=param_type(B, "hash_seed"), help="MurmurHash3 seed")
    add_param(
        m,
        B,
        "max_df",
        "--max-df",
        type=param_type(B, "max_df"),
        help="drop n-grams in more than this fraction of the queries / documents (1 keeps all)",
    )
    add_param(
        m,
        B,
        "frequent_word_ngrams",
        "--content-ngrams",
        action="store_false",
        help="also drop the n-grams (n >= 2) that contain a word --max-df drops ('of kish', 'de la')",
    )
    add_param(
        m,
        B,
        "doc_weighting",
        "--doc-weighting",
        choices=("binary", "idf", "length", "idf-length"),
        help="document side of q^T W d: binary (the paper), idf, 1/sqrt(length), or both "
        "(none: binary standalone, length with --base-run)",
    )
    add_param(m, B, "rounds", "--rounds", type=param_type(B, "rounds"), help="maximum boosting rounds (per bag)")
    add_param(
        m,
        B,
        "rule",
        "--rule",
        choices=("exact", "r"),
        help="step rule: exact (argmax (sqrt W+ - sqrt W-)^2) or r (argmax |W+ - W-|)",
    )
    add_param(m, B, "eps", "--eps", type=param_type(B, "eps"), help="smoothing of the exact step (none: 1/tuples)")
    add_param(
        m, B, "eval_every", "--eval-every", type=param_type(B, "eval_every"), help="score the dev set every N rounds"
    )
    add_param(
        m,
        B,
        "patience",
        "--patience",
        type=param_type(B, "patience"),
        help="stop after this many dev evaluations without improvement (0: never)",
    )
    t = p.add_argument_group("tuples")
    add_param(t, B, "negatives", "--negatives", type=param_type(B, "negatives"), help="sampled d- per relevant d+")
    add_param(t, B, "min_grade", "--min-grade", type=param_type(B, "min_grade"), help="grades >= this are relevant")
    add_param(
        t,
        B,
        "grade_pairs",
        "--grade-pairs",
        type=param_type(B, "grade_pairs"),
        help="extra d- per d+ drawn among the query's judged documents of a lower grade",
    )
    add_param(
        t,
        B,
        "weighting",
        "--weighting",
        choices=("difference", "one", "positive"),
        help="tuple importance D: rel(d+) - rel(d-), 1, or rel(d+)",
    )
    add_param(
        t,
        B,
        "max_positives",
        "--max-positives",
        type=param_type(B, "max_positives"),
        help="at most this many d+ per query (0: all)",
    )
    add_param(
        t,
        B,
        "candidate_depth",
        "--candidate-depth",
        type=param_type(B, "candidate_depth"),
        help="ranks of --candidates / --base-run giving hard negatives (none: 1000 with --candidates, "
        "100 with --base-run)",
    )
    b = p.add_argument_group("bagging and parallelism")
    add_param(b, B, "bags", "--bags", type=param_type(B, "bags"), help="bags trained independently and averaged")
    add_param(
        b,
        B,
        "bag_fraction",
        "--bag-fraction",
        type=param_type(B, "bag_fraction"),
        help="fraction of the tuples in each bag",
    )
    add_param(b, B, "bootstrap", "--bootstrap", action="store_true", help="draw bags with replacement")
    add_param(b, B, "backend", "--backend", choices=BACKENDS, help="joblib backend")
    add_param(
        b, B, "scheduler", "--scheduler", help="dask scheduler address (with --backend dask), e.g. tcp://host:8786"
    )
    add_jobs(
        b,
        help="parallel worker processes for bags and betas (at most one per core); the documents are "
        "tokenized in 2 whatever it is (the same tokens)",
    )
    p.set_defaults(starts_workers=True)  # the tokenizing pool: its workers end with the command (clirkit.cli)
    add_seed(p)
    add_quiet(p)


def _extra(args, collection, docids, texts):
    """``(extra queries, extra qrels)`` from --parallel-tuples and --extra-tuples (``(None, None)`` if neither)."""
    from clirkit.boost.parallel import known_item_queries, merge_queries, read_triples
    from clirkit.errors import ClirkitError

    parts = []
    if args.parallel_tuples:
        if collection is None:
            raise ClirkitError(
                "--parallel-tuples needs --collection (its parallel corpus); with files use --extra-tuples"
            )
        sources, targets = collection.parallel()
        parts.append(
            known_item_queries(sources, collection.parallel_ids(), docids, target_texts=targets, doc_texts=texts)
        )
    if args.extra_tuples:
        parts.append(read_triples(args.extra_tuples, known=set(docids)))
    return merge_queries(parts) if parts else (None, None)


FEW_BITS = 12  # below it, running out of memory means buckets that hold too many pairs, not sizes asked too large


def _fit(ranker, resources, args) -> None:
    """``ranker.fit(resources)``; an error of tuples that cannot be sampled names the files of the judgments."""
    from clirkit.boost.tuples import ExtraTupleError, NoTupleError
    from clirkit.errors import ClirkitError

    try:
        ranker.fit(resources)
    except MemoryError as exc:
        bits = ranker.get_params()["features__bits"]
        if bits >= FEW_BITS:
            raise
        raise ClirkitError(  # not "ask for smaller sizes": too few buckets put too many pairs in each
            f"out of memory: {str(exc).rstrip('.') or 'MemoryError'}; --bits {bits} hashes every pair into "
            f"{2**bits} buckets, each too large to boost: give more bits (the default is 30)"
        ) from None
    except NoTupleError as exc:  # the training qrels give no tuple
        raise ClirkitError(f"{args.qrels}: {exc}" if args.qrels else str(exc)) from None
    except ExtraTupleError as exc:  # --extra-tuples, --parallel-tuples
        parallel = "the collection's parallel corpus (--parallel-tuples)" if args.parallel_tuples else None
        named = " and ".join(n for n in (args.extra_tuples, parallel) if n)
        raise ClirkitError(f"{named}: {exc.reason}") from None


def run(args) -> int:
    from clirkit.boost import BoostRanker
    from clirkit.cli.boostchecks import check_backend, check_dev, check_options, read_base_run, read_candidates
    from clirkit.cli.params import params_of, tokenize_jobs
    from clirkit.documents import Documents
    from clirkit.errors import counted
    from clirkit.estimator import Resources
    from clirkit.progress import held_until_checked, say

    params = params_of(args, convert={"beta_grid": tuple})  # by flat names: from_flat puts each in its group
    probe = BoostRanker.from_flat(**params, jobs=args.jobs, random_state=args.seed, quiet=args.quiet)
    check_backend(params)  # before the ranker's own check, whose message names its keyword
    probe.check_params()
    check_options(args, params)
    with held_until_checked():  # the files' languages said once the inputs pass their checks
        data = load_data(args, qrels=True, dev=True)
        check_dev(args, params, data)
        # the candidate depth without a base run (refused with --candidates)
        candidates = read_candidates(args, data, params["min_grade"], probe._candidate_depth())
        base = read_base_run(args, data)
        extra_queries, extra_qrels = _extra(args, data.collection, *data.documents)
        source_lang, target_lang = assumed_languages(data, "boost-train")
        ranker = BoostRanker.from_flat(
            **params,
            source_lang=source_lang,
            target_lang=target_lang,
            base=base,
            jobs=args.jobs,
            random_state=args.seed,
            quiet=args.quiet,
        )
        has_dev = data.dev_queries is not None and data.dev_qrels is not None
        resources = Resources(
            topics={"train": data.queries, **({"dev": data.dev_queries} if has_dev else {})},
            qrels={"train": data.qrels, **({"dev": data.dev_qrels} if has_dev else {})},
            documents=Documents(*data.documents, jobs=tokenize_jobs()),  # tokenized in 2 processes (the same tokens)
            analyzers=analyzers_of(args, ranker.source_lang, ranker.target_lang),
            candidates=candidates,
            known_items=None if extra_queries is None else (extra_queries, extra_qrels),
            options={"parallel_tuples": extra_queries is not None},  # --parallel-tuples, --extra-tuples
            records={"base": {"runs": [str(p) for p in args.base_run]}} if base else None,
        )
    _fit(ranker, resources, args)
    model = ranker.model_
    model.save(args.output)
    rounds = model.params["bag_rounds"]
    beta = f", beta {model.beta:g}" if model.from_base else ""
    say(
        f"boost-train: {counted(len(model), 'phrase-table entry', 'phrase-table entries')} from "
        f"{counted(len(rounds), 'bag')} ({', '.join(map(str, rounds))} {'round' if rounds == [1] else 'rounds'} "
        f"kept{beta}) -> {args.output}",
        quiet=args.quiet,
    )
    return 0
