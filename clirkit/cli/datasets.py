"""``clirkit datasets {list,export,build}``: the known collections, a collection as the plain files the other
verbs read (:mod:`clirkit.datasets.export`), and building the collections made from third-party files
(:func:`clirkit.datasets.build`)."""

from __future__ import annotations

from clirkit.cli.common import HelpFormatter, add_quiet, add_verb_with_actions, checked, folder_name, one_line_errors

STATUS_NOTES = {
    "to build": "to build: clirkit datasets build NAME --from DIR (see clirkit datasets build --help for the files "
    "and where to download them)",
    "shared": "shared: built from the shared data folder ($CLIRKIT_SHARED) on first use",
    "built": "built: built once, kept in the cache ($CLIRKIT_CACHE, default ~/.cache/clirkit)",
}


def add_parser(sub) -> None:
    from clirkit import datasets

    actions = add_verb_with_actions(
        sub,
        "datasets",
        "the known collections: list them, write one as plain files, build one from downloaded files",
        ["list", "export", "build"],
    )

    def action(name: str, help: str, description: str, run):
        a = actions.add_parser(name, help=help, description=description, formatter_class=HelpFormatter)
        one_line_errors(a)
        a.set_defaults(func=checked(run, a))
        return a

    action(
        "list",
        "every known collection, its variants, whether it is bundled or must be built",
        "Print each collection clirkit knows: name, variants (the first is the default), status (bundled with "
        "clirkit; built (in the cache); shared (built from the shared data folder on first use); to build "
        "(clirkit datasets build)) and what its queries and documents are. Any collection folder, and "
        "irds:ID (ir_datasets, pip install 'clirkit[irds]'), are collections too.",
        run_list,
    )

    e = action(
        "export",
        "write a collection's documents, queries, qrels and parallel text as plain files",
        "Write a collection as the files the verbs read: docs.tsv (docid TAB text), queries.SPLIT.tsv "
        "(qid TAB text), SPLIT.qrels (TREC qid 0 docid grade), parallel.SOURCE.txt and parallel.TARGET.txt "
        "(one sentence per line, aligned line by line) and README.txt saying what each is. Nothing is "
        "left half-written on an error or Ctrl-C.",
        run_export,
    )
    e.add_argument("name", metavar="NAME", help="a collection (clirkit datasets list), a collection folder or irds:ID")
    e.add_argument("--variant", default=None, help="the collection's variant (default: its first)")
    e.add_argument(
        "-o",
        "--output",
        required=True,
        type=folder_name,
        metavar="DIR",
        help="folder to write the files into (new, or empty)",
    )
    e.add_argument(
        "--force",
        action="store_true",
        help="write into a folder that is not empty, replacing the files of the same names",
    )
    add_quiet(e)

    needs = " ".join(f"{datasets.recipe(name).needs()}." for name in datasets.buildable())
    b = action(
        "build",
        "build a collection from third-party files you downloaded (once; kept in the cache)",
        "Build a collection that clirkit cannot bundle from its source files, once, into the cache "
        "($CLIRKIT_CACHE, default ~/.cache/clirkit), where datasets.load(NAME) and --collection NAME then "
        f"find it. {needs} Each DIR may hold the files as downloaded (the source's own folder) or one "
        "folder per source.",
        run_build,
    )
    b.add_argument("name", metavar="NAME", help=f"the collection: {', '.join(datasets.buildable())}")
    b.add_argument(
        "--from",
        dest="sources",
        metavar="DIR",
        action="append",
        required=True,
        help="a folder holding source files (repeat for sources downloaded into several folders)",
    )
    add_quiet(b)


def run_list(args) -> int:
    from clirkit import datasets
    from clirkit.progress import say

    rows = datasets.catalog()
    table = [("NAME", "VARIANTS", "STATUS", "DESCRIPTION")]
    table += [(r["name"], ", ".join(r["variants"]), r["status"], r["description"]) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(3)]
    for row in table:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[3])
    for status in dict.fromkeys(r["status"] for r in rows):
        if status in STATUS_NOTES:
            say(STATUS_NOTES[status])
    return 0


def run_export(args) -> int:
    from clirkit.datasets.export import export

    export(args.name, args.output, variant=args.variant, force=args.force, quiet=args.quiet)
    return 0


def run_build(args) -> int:
    import time

    from clirkit import datasets
    from clirkit.datasets._store import describe_counts
    from clirkit.progress import say

    start = time.perf_counter()
    datasets.recipe(args.name).located(args.sources)  # an unknown name, a missing folder or file: before any line
    say(f"datasets build: {args.name} from {', '.join(args.sources)}", quiet=args.quiet)
    folder = datasets.build(args.name, *args.sources)
    for variant in datasets.variants(args.name):
        print(describe_counts(variant, datasets.Collection(folder / variant).counts))
    say(
        f"datasets build: {args.name} ready in {time.perf_counter() - start:.1f} s -> {folder} "
        f"(datasets.load and --collection {args.name} read it from there)",
        quiet=args.quiet,
    )
    return 0
