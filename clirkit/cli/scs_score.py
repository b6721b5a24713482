"""``clirkit scs-score MODEL -o RUN``: rank documents with a trained SCS model.

Scores the whole collection (dense products, top ``--depth`` per query) or,
with ``--rerank RUN``, re-scores the rows of an existing run.
"""

from __future__ import annotations

from clirkit.cli.common import add_depth, add_jobs, add_quiet, add_verb, run_tag
from clirkit.cli.data import add_data_options, load_data


def add_parser(sub) -> None:
    p = add_verb(sub, "scs-score", "rank documents with a trained SCS model (writes a TREC run)", run)
    p.add_argument("model", metavar="MODEL", help="model file made by `clirkit scs-train`")
    add_data_options(p, "test")
    p.add_argument("-o", "--output", required=True, help="run file to write (- for stdout)")
    p.add_argument("--rerank", metavar="RUN", help="re-score this run's rows instead of the whole collection")
    add_depth(p)
    p.add_argument("--tag", type=run_tag, default=None, help="run tag (6th column; default: SCS)")
    add_jobs(p)
    add_quiet(p)


def run(args) -> int:
    from clirkit.cli.data import check_model_languages, data_files, read_run_of
    from clirkit.errors import ClirkitError, counted
    from clirkit.fileio import check_outputs
    from clirkit.formats import write_run
    from clirkit.progress import say
    from clirkit.scs import SCSModel

    check_outputs({"-o": args.output}, {"MODEL": args.model, **data_files(args), "--rerank": args.rerank})
    model = SCSModel.load(args.model)
    if model.query_analyzer_ is None:
        raise ClirkitError(
            f"{args.model}: this SCS model was trained on tokens (its file has no analyzers): "
            f"scs-score needs a model trained on texts, by `clirkit scs-train`"
        )
    data = load_data(args, lang=model.query_analyzer_.get("lang"))
    check_model_languages(args.model, "SCS", (model.query_analyzer_.get("lang"), model.doc_analyzer_.get("lang")), data)
    queries, documents = data.queries, data.documents
    rerank = read_run_of(args.rerank, data) if args.rerank else None
    run_ = model.search(
        queries, documents=documents, depth=args.depth, rerank=rerank, tag=args.tag, quiet=args.quiet, jobs=args.jobs
    )
    found = f"{counted(len(run_), 'row')} for {len(run_.query_ids):,} of {counted(len(queries), 'query', 'queries')}"
    say(f"scs-score: {found}", quiet=args.quiet)
    write_run(run_, args.output, depth=args.depth if rerank is None else None)
    return 0
