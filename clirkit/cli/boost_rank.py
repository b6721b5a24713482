"""``clirkit boost-rank MODEL -o RUN``: rank a collection (or re-rank a run) with a BoostCLIR model.

A model boosted from a base ranker (``boost-train --base-run``) re-ranks that base system's run
(``--candidates``) with beta * score / query max + q^T W d.
"""

from __future__ import annotations

from clirkit.cli.common import add_depth, add_quiet, add_verb, positive_int, run_tag
from clirkit.cli.data import add_data_options, load_data


def add_parser(sub) -> None:
    p = add_verb(
        sub,
        "boost-rank",
        "rank documents with a BoostCLIR phrase table (sparse products), or re-rank a candidate run",
        run,
    )
    p.set_defaults(starts_workers=True)  # the tokenizing pool: its workers end with the command (clirkit.cli)
    p.add_argument("model", help="model file written by boost-train")
    add_data_options(p, "test")
    p.add_argument(
        "--candidates",
        help="re-rank this run's (query, document) rows instead of the whole collection "
        "(required for a model boosted from a base ranker: the base system's run)",
    )
    p.add_argument("-o", "--output", default="-", help="run file to write (TREC 6 columns; - for stdout)")
    add_depth(p, help="documents kept per query")
    p.add_argument("--batch", type=positive_int, default=256, help="queries scored per sparse product")
    p.add_argument("--tag", type=run_tag, default="Boost", help="run tag (6th column)")
    add_quiet(p)


def run(args) -> int:
    from clirkit.boost import BoostRanker
    from clirkit.cli.common import check_query_fields_unused
    from clirkit.cli.data import check_model_languages, data_files, read_run_of
    from clirkit.cli.params import tokenize_jobs
    from clirkit.errors import ClirkitError
    from clirkit.fileio import check_outputs, display_name
    from clirkit.formats import write_run
    from clirkit.progress import say

    check_query_fields_unused(args)
    check_outputs({"-o": args.output}, {"MODEL": args.model, **data_files(args), "--candidates": args.candidates})
    model = BoostRanker.load(args.model).model_  # its recorded hyper-parameters checked, as in Python
    if model.from_base and not args.candidates:
        raise ClirkitError(
            f"{args.model} was boosted from a base ranker ({model.base.get('tag', '?')}): give its run "
            "over these queries with --candidates"
        )
    data = load_data(args, lang=model.source_analyzer.lang)
    check_model_languages(args.model, "BoostCLIR", (model.source_analyzer.lang, model.target_analyzer.lang), data)
    queries, (docids, texts) = data.queries, data.documents
    candidates = read_run_of(args.candidates, data) if args.candidates else None
    if candidates is not None and model.from_base:  # its scores are the base's: >= 0, said at their line
        from clirkit.cli.boostchecks import check_base_scores

        check_base_scores(args.candidates, candidates)
    base_tag = (model.base or {}).get("tag")
    if candidates is not None and len(candidates) and base_tag and candidates.tag != base_tag:
        say(
            f"note: --candidates {display_name(args.candidates)} is tagged {candidates.tag!r}, the run this model "
            f"was boosted from {base_tag!r}: it re-ranks another system's run than the one it learned to correct",
            quiet=args.quiet,
        )
    q_tok = dict(zip(queries, model.source_analyzer.tokenize_many(list(queries.values()), quiet=True)))
    d_tok = model.target_analyzer.tokenize_many(
        list(texts), quiet=args.quiet, jobs=tokenize_jobs(), desc="tokenizing documents"
    )
    if candidates is not None:
        run_ = model.rerank(candidates, q_tok, docids, d_tok, depth=args.depth, tag=args.tag)
    else:
        run_ = model.rank(q_tok, docids, d_tok, depth=args.depth, batch=args.batch, tag=args.tag, quiet=args.quiet)
    empty = len(queries) - len(run_.query_ids)
    if empty and candidates is None:  # (queries without a candidate are said as they are read: read_run_of)
        say(
            f"boost-rank: {empty} of {len(queries)} queries share no n-gram with the phrase table: no result",
            quiet=args.quiet,
        )
    write_run(run_, args.output)
    return 0
