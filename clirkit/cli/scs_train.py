"""``clirkit scs-train -o MODEL``: train the SCS neural model (SPEC §7).

Training data is either a bundled/known collection (``--collection``, its
``--split``) or three files: queries, documents and graded qrels.
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
    int_range,
    param_type,
)
from clirkit.cli.data import add_data_options, assumed_languages, load_data


def add_parser(sub) -> None:
    from clirkit.cli.params import add_param
    from clirkit.scs import SCSModel as S

    p = add_verb(sub, "scs-train", "train the SCS model (smooth cosine, SOSL) on graded judgments", run)
    add_data_options(p, "train", qrels="graded judgments of the training queries (qid iter docid rel)")
    p.add_argument("-o", "--output", required=True, help="model file to write (.npz)")
    m = p.add_argument_group("model")
    add_param(m, S, "dim", "--dim", type=param_type(S, "dim"), help="embedding dimension")
    add_param(m, S, "eps", "--eps", type=param_type(S, "eps"), help="smoothing of the cosine (0: plain cosine)")
    add_param(m, S, "loss", "--loss", choices=("sosl", "mse", "hinge", "logistic", "exp"), help="loss")
    add_param(
        m,
        S,
        "thresholds",
        "--thresholds",
        type=finite_float(-1, 1, low_open=True, high_open=True),
        nargs="+",
        help="sosl and mse: inner thresholds, one fewer than the grades, increasing inside (-1, 1)",
    )
    add_param(
        m,
        S,
        "mse_targets",
        "--mse-targets",
        type=finite_float(-1, 1),
        nargs="+",
        help="mse: target per grade, in [-1, 1] (none: middle of each SOSL segment)",
    )
    add_param(m, S, "margin", "--margin", type=param_type(S, "margin"), help="hinge: the loss's margin")
    add_param(
        m,
        S,
        "pair_weight",
        "--pair-weight",
        choices=("uniform", "grade"),
        help="pairwise losses: weight of a (d+, d-) pair (grade: grade difference)",
    )
    add_param(
        m,
        S,
        "max_pairs_per_query",
        "--max-pairs-per-query",
        type=int_range(0, note="(0: all)"),
        help="pairwise losses: sample at most this many (d+, d-) pairs per query (0 or none: all)",
    )
    m.add_argument(
        "--query-vectors",
        help="word vectors of the query language (word v1 ... v_dim per line), matched to the analyzed "
        "(stemmed) query terms as written: with a stemmer, a word starts a term only if it is its own stem "
        "(love, not loving); a line says how many start",
    )
    m.add_argument(
        "--doc-vectors",
        help="word vectors of the document language, matched to the analyzed (stemmed) document terms as "
        "--query-vectors to the query terms",
    )
    add_param(
        m,
        S,
        "init_scale",
        "--init-scale",
        type=param_type(S, "init_scale"),
        help="std of the random embedding initialization",
    )
    add_language_options(m, files_only=True)
    analysis = p.add_argument_group("analysis of the queries and documents")
    add_analysis_options(analysis, stopword_files=False)
    add_side_stopword_options(analysis)
    t = p.add_argument_group("training")
    add_param(t, S, "epochs", "--epochs", type=param_type(S, "epochs"), help="passes over the training pairs")
    add_param(t, S, "lr", "--lr", type=param_type(S, "lr"), help="Adam learning rate")
    add_param(t, S, "batch_size", "--batch-size", type=param_type(S, "batch_size"), help="pairs per batch")
    add_param(
        t, S, "negatives", "--negatives", type=param_type(S, "negatives"), help="irrelevant documents sampled per query"
    )
    add_param(
        t,
        S,
        "lazy_adam",
        "--dense-adam",
        action="store_false",
        help="textbook Adam moving every embedding row every step (default: lazy Adam on the rows a "
        "batch touches, 3-4x faster)",
    )
    add_seed(p)
    add_jobs(p)
    add_quiet(p)


def _check_options(args, params: dict, model) -> None:
    """ClirkitError naming the option for what ``model`` (made from ``params``, the options' parameters) would
    not train with: no epochs, an option given (even at its default) that its loss leaves unused (its value
    checked first), a parameter off its constraints, thresholds that do not increase, MSE targets not one per
    grade."""
    from clirkit.cli.params import given
    from clirkit.constraints import validate
    from clirkit.errors import ClirkitError
    from clirkit.paramgroups import flat_constraints
    from clirkit.scs import SCSModel
    from clirkit.scs.losses import check_thresholds
    from clirkit.scs.model import ZERO_EPOCHS
    from clirkit.scs.params import READ_BY, unused_by_loss

    if model.schedule.epochs == 0:
        raise ClirkitError(ZERO_EPOCHS.format("--epochs"))
    unused = unused_by_loss(params["loss"], [name for name in READ_BY if given(args, name)])
    if unused:
        validate(flat_constraints(SCSModel), {name: params[name] for name, _ in unused}, "SCSModel")
        raise ClirkitError(f"--{unused[0][0].replace('_', '-')}: {unused[0][1]}")
    model.check_params()
    try:
        grades = len(check_thresholds(model.objective.thresholds)) - 1
    except ClirkitError as exc:
        raise ClirkitError(f"--thresholds: {exc}") from None
    if model.objective.mse_targets is not None and len(model.objective.mse_targets) != grades:
        raise ClirkitError(
            f"--mse-targets: give one target per grade ({grades}: one more than --thresholds), "
            f"got {len(model.objective.mse_targets)}"
        )


def run(args) -> int:
    from clirkit.cli.common import side_stopword_files
    from clirkit.cli.data import data_files
    from clirkit.cli.params import params_of
    from clirkit.errors import ClirkitError, counted
    from clirkit.estimator import Resources
    from clirkit.fileio import check_outputs
    from clirkit.progress import held_until_checked, say
    from clirkit.scs import SCSModel, read_word_vectors
    from clirkit.scs.training import NoQueryTermError, NoRelevantError

    params = params_of(args, convert={"thresholds": tuple, "mse_targets": tuple})
    params["max_pairs_per_query"] = params["max_pairs_per_query"] or None
    model = SCSModel.from_flat(**params, random_state=args.seed)  # each option's parameter in its group
    _check_options(args, params, model)
    vectors = {"--query-vectors": args.query_vectors, "--doc-vectors": args.doc_vectors}
    check_outputs({"-o": args.output}, {**data_files(args), **vectors, **side_stopword_files(args)})
    with held_until_checked():  # the files' languages said once the inputs pass their checks
        data = load_data(args, qrels=True)
        train, documents = data.queries, data.documents
        source_lang, target_lang = assumed_languages(data, "scs-train")
        model.set_params(source_lang=source_lang, target_lang=target_lang)
        qv = read_word_vectors(args.query_vectors, model.shape.dim) if args.query_vectors else None
        dv = read_word_vectors(args.doc_vectors, model.shape.dim) if args.doc_vectors else None
        say(
            f"scs-train: {counted(len(train), 'training query', 'training queries')}, "
            f"{counted(len(documents[0]), 'document')}",
            quiet=args.quiet,
        )
        resources = Resources(
            topics={"train": train},
            qrels={"train": data.qrels},
            documents=documents,
            query_vectors=qv,
            doc_vectors=dv,
            quiet=args.quiet,
            jobs=args.jobs,
            analyzers=analyzers_of(args, model.source_lang, model.target_lang),
        )
    try:
        model.fit(resources)
    except NoRelevantError as exc:  # the message names the qrels file
        raise ClirkitError(f"{args.qrels}: {exc}" if getattr(args, "qrels", None) else str(exc)) from None
    except NoQueryTermError as exc:  # the queries file
        raise ClirkitError(f"{args.queries}: {exc}" if getattr(args, "queries", None) else str(exc)) from None
    model.save(args.output)
    stats = model.training_stats_
    say(
        f"scs-train: {counted(stats['units'], 'training unit')}, vocabularies {stats['query_vocabulary']:,} / "
        f"{stats['doc_vocabulary']:,}; wrote {args.output}",
        quiet=args.quiet,
    )
    return 0
