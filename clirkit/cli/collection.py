"""``clirkit collection``: plain files (documents, topics, qrels, a parallel corpus) checked and written as a
collection folder, the one an experiment file's ``[collection]`` table makes (:mod:`clirkit.datasets.plain`);
``clirkit run`` and every ``--collection`` option read it."""

from __future__ import annotations

import argparse
import re

from clirkit.cli.common import add_language_options, add_quiet, add_verb, folder_name, int_range

SPLIT_FILE = re.compile(r"(train|dev|test)=(.+)")


def add_parser(sub) -> None:
    p = add_verb(
        sub,
        "collection",
        "a collection folder from plain files: documents, topics (TSV, JSONL, TREC, CLEF, "
        "NTCIR, HC4), TREC qrels, an optional parallel corpus; checked, split, written "
        "(what [collection] in an experiment file makes)",
        run,
    )
    p.add_argument("--documents", required=True, metavar="FILE", help="docid TAB text (TSV) or JSONL, .gz fine")
    p.add_argument(
        "--queries",
        required=True,
        action="append",
        metavar="[SPLIT=]FILE",
        help="the topics, detected: TSV, JSONL, TREC SGML, CLEF XML, NTCIR XML, HC4 JSONL; one file, or "
        "one per split, repeated: --queries dev=dev.xml --queries test=test.xml",
    )
    p.add_argument(
        "--qrels",
        required=True,
        action="append",
        metavar="[SPLIT=]FILE",
        help="TREC qrels (qid 0 docid grade): one file for every split, or one per split as --queries",
    )
    add_language_options(p)
    p.add_argument(
        "--parallel",
        nargs="+",
        metavar="FILE",
        help="a parallel corpus: id TAB source TAB target, or two files aligned by line (source, target); "
        "needed to train IBM Model 1, not when a table file is given",
    )
    p.add_argument(
        "--split",
        default=None,
        metavar="SPLIT=FRACTION,...",
        help="with one queries file: its queries split by id, e.g. dev=0.5,test=0.5 (default: all test)",
    )
    p.add_argument(
        "--split-seed", type=int_range(0), default=0, action=_GivenSeed, metavar="N", help="the seed of --split"
    )
    p.add_argument(
        "--query-fields",
        default=None,
        metavar="FIELDS",
        help="the topic fields that make a query, e.g. title,desc (default: title)",
    )
    p.add_argument("--name", default=None, help="the collection's name in reports (default: the output folder's)")
    p.add_argument(
        "-o",
        "--output-dir",
        type=folder_name,
        default=None,
        help="the collection folder to write (replaced as a whole if it is one); without it the files are only checked",
    )
    add_quiet(p)


class _GivenSeed(argparse.Action):
    """Stores ``--split-seed`` and notes that it was given (at the default too): a seed without ``--split`` is
    refused (:meth:`clirkit.datasets.plain.PlainCollection.from_dict`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        namespace.split_seed_given = True


def _label(key: str) -> str:
    """A key of :mod:`clirkit.datasets.plain` as this verb's option (``queries.dev`` -> ``--queries dev=``)."""
    option, _, split = key.partition(".")
    return f"--{option.replace('_', '-')}" + (f" {split}=" if split else "")


def _by_split(values: list[str], option: str):
    """``[FILE]`` -> FILE; ``[SPLIT=FILE, ...]`` -> {split: file}. ClirkitError for a split named twice (a dict
    would keep the last file: ``--queries dev=a.tsv --queries dev=b.tsv`` read as dev b.tsv), checked first, and
    for a value that is not ``SPLIT=FILE`` among several."""
    from clirkit.errors import ClirkitError

    matches = [SPLIT_FILE.fullmatch(v) for v in values]
    first: dict[str, str] = {}
    for m in filter(None, matches):
        if m.group(1) in first:
            raise ClirkitError(
                f"{option} names the split {m.group(1)!r} twice ({first[m.group(1)]} and {m.group(2)}); give each "
                f"split once, e.g. {option} dev=FILE {option} test=FILE"
            )
        first[m.group(1)] = m.group(2)
    if len(values) == 1 and not matches[0]:
        return values[0]
    if not all(matches):
        bad = values[matches.index(None)]
        raise ClirkitError(f"{option} {bad}: give one file, or SPLIT=FILE for each split (train, dev, test)")
    return {m.group(1): m.group(2) for m in matches}


def _fractions(text: str | None):
    from clirkit.errors import ClirkitError
    from clirkit.fileio import file_float

    if text is None:
        return None
    out: dict[str, float] = {}
    for part in text.split(","):
        split, _, fraction = part.partition("=")
        split = split.strip()
        if split in out:  # a dict would keep the last: dev=0.3,test=0.5,dev=0.5 read as dev 0.5, test 0.5
            raise ClirkitError(
                f"--split {text}: names the split {split!r} twice; give each split once, e.g. dev=0.5,test=0.5"
            )
        try:
            out[split] = file_float(fraction.strip())  # as the other options: ASCII digits, no "_"
        except ValueError:
            what = f"the fraction {fraction.strip()!r} of {split!r} is not a number; " if fraction.strip() else ""
            raise ClirkitError(f"--split {text}: {what}expected SPLIT=FRACTION,... such as dev=0.5,test=0.5") from None
    return out


def run(args) -> int:
    from pathlib import Path

    from clirkit.datasets._store import describe_counts
    from clirkit.datasets.plain import PlainCollection

    data = {
        "documents": args.documents,
        "queries": _by_split(args.queries, "--queries"),
        "qrels": _by_split(args.qrels, "--qrels"),
        "source_lang": args.source_lang,
        "target_lang": args.target_lang,
        "split": _fractions(args.split),
        "split_seed": args.split_seed if getattr(args, "split_seed_given", False) else None,  # refused alone
        "query_fields": args.query_fields,
        "parallel": args.parallel[0] if args.parallel and len(args.parallel) == 1 else args.parallel,
    }
    data = {k: v for k, v in data.items() if v is not None}
    # the collection's name: --name, or the folder written; only checked, it has none (its notes name the files)
    name = args.name or (Path(args.output_dir).name if args.output_dir else None)
    if name is not None:
        name = re.sub(r"[^\w.+-]+", "-", name) or "plain"
    plain = PlainCollection.from_dict(data, where="", label=_label, name=name)
    if args.output_dir is None:
        data = plain.read(quiet=args.quiet)
        print(describe_counts("checked", data.counts()))
        return 0
    from clirkit.experiment.store import Store

    store = Store(
        Path(args.output_dir), ours=_collection_file, what="a collection folder", resume=False, check_inside=False
    )
    try:
        manifest = plain.write(store.folder, quiet=args.quiet)
    except BaseException:
        import shutil

        shutil.rmtree(store.folder, ignore_errors=True)
        raise
    folder = store.commit()
    print(describe_counts(f"{manifest['name']} in {folder}", manifest["counts"]))
    return 0


def _collection_file(name: str) -> bool:
    """A name a collection folder this verb writes holds."""
    return name in ("manifest.json", "sources.json", "documents.tsv", "parallel.tsv") or bool(
        re.fullmatch(r"(queries\.\w+\.tsv|qrels\.\w+\.txt|\..*\.tmp)", name)
    )
