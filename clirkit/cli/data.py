"""The data of the verbs that train or rank from texts (boost-train, boost-rank, scs-train, scs-score): a
collection (``--collection``, one of its splits), or files (``--queries``, ``--documents``, and ``--qrels``
where the verb learns): :func:`add_data_options` declares the options, :func:`load_data` reads them.
"""

from __future__ import annotations

import argparse
from typing import NamedTuple

from clirkit.cli.common import add_query_fields


class Data(NamedTuple):
    """What :func:`load_data` read; None for what the verb did not ask for (qrels, dev) or the files do not say
    (the languages: ``--source-lang``/``--target-lang``, when the verb has them)."""

    queries: dict[str, str]
    qrels: object | None  # clirkit.run.Qrels
    documents: tuple[list[str], list[str]]
    dev_queries: dict[str, str] | None
    dev_qrels: object | None
    source_lang: str | None
    target_lang: str | None
    collection: object | None  # the clirkit.datasets collection, when one was given


class _CollectionOption(argparse._StoreAction):
    """argparse's "store", also noting the option given (at its default too) in ``collection_options``: an option
    that chooses among a collection's queries, refused with files (:func:`load_data`)."""

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        namespace.collection_options = [
            *getattr(namespace, "collection_options", []),
            max(self.option_strings, key=len),
        ]


# what each option of :class:`_CollectionOption` chooses, for the message refusing it with files
_CHOOSES = {
    "--variant": "chooses a collection's variant",
    "--split": "chooses the collection split of the queries",
    "--dev-split": "chooses the collection split of the dev queries",
}


def add_data_options(
    p: argparse.ArgumentParser, split: str, *, qrels: str | None = None, dev: bool = False
) -> argparse._ArgumentGroup:
    """``--collection/--variant/--split`` or ``--queries/--documents`` (and ``--qrels`` with ``qrels``, its help;
    ``--dev-split`` or ``--dev-queries/--dev-qrels`` with ``dev``), then the query fields. Returns the group,
    for the verb's other data options."""
    g = p.add_argument_group("data (a collection, or files)")
    g.add_argument(
        "--collection", help="a known collection (e.g. nave-en-es) or a collection folder (see clirkit.datasets)"
    )
    g.add_argument(
        "--variant", default=None, action=_CollectionOption, help="collection variant (default: the collection's first)"
    )
    g.add_argument(
        "--split",
        default=split,
        action=_CollectionOption,
        help=f"collection split of the queries{' and qrels' if qrels else ''}",
    )
    if dev:
        g.add_argument(
            "--dev-split",
            default="dev",
            action=_CollectionOption,
            help="collection split for early stopping ('none': no dev set)",
        )
    g.add_argument("--queries", help="queries file (qid TAB text, JSONL, or TREC, CLEF, NTCIR or HC4/NeuCLIR topics)")
    if qrels:
        g.add_argument("--qrels", help=qrels)
    g.add_argument("--documents", help="documents file (docid TAB text or JSONL)")
    if dev:
        g.add_argument("--dev-queries", help="dev queries for early stopping on MAP")
        g.add_argument("--dev-qrels", help="dev judgments")
    add_query_fields(p)
    return g


def data_files(args: argparse.Namespace) -> dict:
    """The data files of :func:`add_data_options`' options given in ``args`` (option -> path or None), the
    inputs of :func:`clirkit.fileio.check_outputs`."""
    options = ("--queries", "--qrels", "--documents", "--dev-queries", "--dev-qrels")
    return {o: getattr(args, o[2:].replace("-", "_"), None) for o in options}


def assumed_languages(data: "Data", verb: str) -> tuple[str, str]:
    """The languages of ``data`` (source, target), en and es where neither the options nor the collection give
    them, which is said on stderr, ``--quiet`` too (a learned model analyzes each side as its language: a wrong
    guess loses effectiveness with no other sign)."""
    from clirkit.progress import say

    source, target = data.source_lang or "en", data.target_lang or "es"
    if data.source_lang is None or data.target_lang is None:
        say(
            f"{verb}: no --source-lang/--target-lang: the queries are analyzed as {source} and the documents as "
            f"{target}; give both for other languages"
        )
    return source, target


def load_data(args: argparse.Namespace, *, qrels: bool = False, dev: bool = False, lang: str | None = None) -> Data:
    """The queries, documents (and qrels, dev queries and qrels, as asked) of :func:`add_data_options`'
    options, from the collection or from the files; ``lang``, the queries' language when the verb knows it
    (else ``--source-lang``), chooses a topic's version in HC4 files. ClirkitError for a collection given
    with files (or an option choosing among a collection's queries with files), or files missing."""
    from clirkit.cli.common import check_query_fields_unused, query_fields
    from clirkit.errors import ClirkitError

    check_query_fields_unused(args)
    files = {"--queries": args.queries, **({"--qrels": args.qrels} if qrels else {}), "--documents": args.documents}
    dev_files = (args.dev_queries, args.dev_qrels) if dev else (None, None)
    if args.collection:
        if any(files.values()) or any(dev_files):
            raise ClirkitError(f"give either --collection or {'/'.join(files)} files, not both")
        return _collection_data(args, qrels, dev)
    for option in getattr(args, "collection_options", [])[:1]:
        raise ClirkitError(f"{option} {_CHOOSES[option]}, and the data are files: give --collection, or drop {option}")
    missing = [name for name, value in files.items() if not value]
    if missing:
        raise ClirkitError(f"give --collection, or {', '.join(missing)}")
    if bool(dev_files[0]) != bool(dev_files[1]):
        raise ClirkitError("give both --dev-queries and --dev-qrels, or neither")
    _check_dev_files(args.queries, dev_files[0])
    from clirkit.formats import read_documents, read_qrels, read_queries
    from clirkit.langcheck import say_language_notices

    fields = query_fields(args, lang=lang or getattr(args, "source_lang", None))
    data = Data(
        read_queries(args.queries, **fields),
        read_qrels(args.qrels) if qrels else None,
        read_documents(args.documents),
        read_queries(dev_files[0], **fields) if dev_files[0] else None,
        read_qrels(dev_files[1]) if dev_files[1] else None,
        getattr(args, "source_lang", None),
        getattr(args, "target_lang", None),
        None,
    )
    _say_dev_overlap(data, getattr(args, "quiet", False))
    say_language_notices(
        (
            (
                [*data.queries.values(), *(data.dev_queries or {}).values()],
                data.source_lang,
                f"the queries of {args.queries}",
            ),
            (data.documents[1], data.target_lang, f"the documents of {args.documents}"),
        )
    )
    if qrels:
        _check_judged(args.qrels, data.qrels, data.queries, data.documents[0], args.queries, args.documents)
    if dev_files[1]:
        _check_judged(dev_files[1], data.dev_qrels, data.dev_queries, data.documents[0], *dev_files[:1], args.documents)
    return data


def _check_judged(path: str, qrels, queries, docids, queries_path: str, documents_path: str) -> None:
    """ClirkitError naming ``path`` when none of its judgments names both one of ``queries`` (read from
    ``queries_path``) and one of the documents ``docids`` (of ``documents_path``): ids of other files; or when a
    judgment of one of ``queries`` names a document not there (``path:LINE``, as a collection's qrels:
    :func:`~clirkit.formats.qrels.check_judged_documents`)."""
    import numpy as np

    from clirkit.errors import ClirkitError
    from clirkit.formats.qrels import check_judged_documents

    known_query = np.isin(qrels.qids, np.asarray(list(queries), dtype=str))
    if len(qrels.qids) and not (known_query & np.isin(qrels.docids, docids)).any():
        which = "documents" if known_query.any() else "queries"
        raise ClirkitError(
            f"{path}: none of its {len(qrels.qids):,} judgments names a query of {queries_path} and a document of "
            f"{documents_path} (none of its {which} is there): check that the files go together"
        )
    check_judged_documents(path, [qrels.subset(list(queries))], set(docids), documents_path)


def _check_dev_files(queries: str, dev_queries: str | None) -> None:
    """ClirkitError when ``dev_queries`` (the --dev-queries file, or None) is the --queries file ``queries``
    (resolved paths): the dev set would be the training queries."""
    import os

    from clirkit.errors import ClirkitError

    if dev_queries and queries != "-" and os.path.realpath(queries) == os.path.realpath(dev_queries):
        raise ClirkitError(
            f"--dev-queries {dev_queries} is the training queries file (--queries {queries}): the dev set chooses "
            "the rounds on queries not trained on; give other queries, or no --dev-queries"
        )


def _say_dev_overlap(data: Data, quiet: bool) -> None:
    """Says on stderr how many dev queries of ``data`` are training queries too (by id), when some are."""
    from clirkit.progress import say

    if data.dev_queries:
        shared = len(data.dev_queries.keys() & data.queries.keys())
        if shared:
            say(
                f"note: {shared} of the {len(data.dev_queries)} dev queries are training queries too (same ids): "
                "their dev MAP is measured on training data",
                quiet=quiet,
            )


def _collection_data(args: argparse.Namespace, qrels: bool, dev: bool) -> Data:
    from clirkit import datasets
    from clirkit.errors import ClirkitError

    c = datasets.load(args.collection, variant=args.variant)
    _check_given_languages(args, c)
    dev_split = args.dev_split if dev and args.dev_split != "none" else None
    if dev_split == args.split:
        raise ClirkitError(
            f"--dev-split {dev_split} is the training split (--split {args.split}): give another split, "
            "or --dev-split none"
        )
    return Data(
        c.queries(args.split),
        c.qrels(args.split) if qrels else None,
        c.documents(),
        c.queries(dev_split) if dev_split else None,
        c.qrels(dev_split) if dev_split else None,
        c.source_lang,
        c.target_lang,
        c,
    )


def _check_given_languages(args: argparse.Namespace, collection) -> None:
    """ClirkitError for a ``--source-lang``/``--target-lang`` of ``args`` other than ``collection``'s language
    of that side (a collection knows its languages; one equal to it is fine)."""
    from clirkit.errors import ClirkitError

    sides = (
        ("--source-lang", "queries", collection.source_lang),
        ("--target-lang", "documents", collection.target_lang),
    )
    for option, what, lang in sides:
        given = getattr(args, option[2:].replace("-", "_"), None)
        if given is not None and given != lang:
            raise ClirkitError(
                f"{option} {given}: collection {args.collection} has {lang} {what} (a collection knows its "
                f"languages): leave out {option}"
            )


def check_model_languages(path: str, kind: str, model_langs: tuple[str | None, str | None], data: Data) -> None:
    """ClirkitError when the languages a model records (``model_langs``: its queries' and documents', None where
    it records none) differ from those of ``data`` (its collection's, or the files' given languages), naming
    both; nothing where either side does not say."""
    from clirkit.errors import ClirkitError

    wanted = (data.source_lang, data.target_lang)
    if any(m is not None and w is not None and m != w for m, w in zip(model_langs, wanted)):
        where = f"collection {data.collection.name}" if data.collection is not None else "the data"
        raise ClirkitError(
            f"{path}: a {kind} model of {model_langs[0]} queries and {model_langs[1]} documents; "
            f"{where} has {wanted[0]} queries and {wanted[1]} documents"
        )


_GIVE_RUN = ": give a run of these queries over these documents"


def read_run_of(path: str, data: Data, *, queries: bool = True):
    """The run at ``path`` (``--candidates``, ``--rerank``: rows to re-score; ``--base-run``, with ``queries``
    False: its queries may be others too), each of its rows naming a document of ``data`` and (``queries``) a
    query of ``data``; else ClirkitError ``FILE:LINE: problem`` at the first row that does not (the file is
    read again for its line only then). Checked before the documents are tokenized, on the run's distinct ids: no
    copy of the documents' ids is made. Queries of ``data`` without a row (``queries``) are said, ``--quiet`` too."""
    from clirkit.formats import read_run
    from clirkit.sortedunique import sorted_unique

    run = read_run(path)
    unknown_queries = set(run.query_ids) - data.queries.keys() if queries else set()
    unknown_docids = set(sorted_unique(run.docids).tolist())
    unknown_docids.difference_update(data.documents[0])
    if unknown_queries or unknown_docids:
        raise _unknown_row(path, run, unknown_queries, unknown_docids)
    covered = set(run.query_ids)
    uncovered = [q for q in data.queries if q not in covered] if queries else []
    if uncovered:  # said under --quiet too: a run of other queries (or of a few) loses the rest with no other sign
        from clirkit.fileio import display_name
        from clirkit.progress import say

        say(
            f"{display_name(path)}: no row for {len(uncovered):,} of the {len(data.queries):,} queries (the first: "
            f"{uncovered[0]}): they get no result"
        )
    return run


def _unknown_row(path: str, run, queries: set[str], docids: set[str]):
    """The error for the first row of the run at ``path`` (``run``, read from it) whose query is one of the
    unknown ``queries`` or document one of the unknown ``docids`` (one of them not empty): at its line, or for
    stdin (read once) the first in rank order; without a line if the file changed since it was read."""
    from clirkit.errors import located
    from clirkit.fileio import display_name
    from clirkit.formats.runs import first_line_where

    found = first_line_where(path, lambda fields: fields[0] in queries or fields[2] in docids)
    if found is None and path == "-":  # (stdin is read once: the first such row in rank order)
        pairs = zip(run.qids.tolist(), run.docids.tolist())
        found = next(((None, [q, "Q0", d]) for q, d in pairs if q in queries or d in docids), None)
    if found is not None:
        lineno, (qid, _, docid, *_) = found
        if qid in queries:
            return located(display_name(path), lineno, f"query {qid!r} is not among the queries{_GIVE_RUN}")
        return located(display_name(path), lineno, f"document {docid!r} is not among the documents{_GIVE_RUN}")
    what = f"query {min(queries)!r} is not among the queries" if queries else ""
    what = what or f"document {min(docids)!r} is not among the documents"
    return located(display_name(path), None, what + _GIVE_RUN)
