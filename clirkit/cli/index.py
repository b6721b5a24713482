"""``clirkit index DOCS -o INDEX --lang xx``: build a sparse index of documents (``--shards N``: a sharded index,
:mod:`clirkit.retrieval.shards`)."""

from __future__ import annotations

import argparse
import itertools
import time

from clirkit.cli.common import (
    add_analysis_options,
    add_jobs,
    add_quiet,
    add_verb,
    language,
    nonnegative_int,
    positive_int,
)


def add_parser(sub) -> None:
    from clirkit.cli.params import tokenize_jobs

    p = add_verb(sub, "index", "index documents (docid TAB text, or JSONL) for BM25 search", run)
    p.add_argument("documents", help="documents file (.tsv/.jsonl, optionally .gz; - for stdin)")
    p.add_argument("-o", "--output", required=True, help="index file to write (.npz)")
    p.add_argument(
        "--shards",
        metavar="N",
        type=positive_int,
        default=1,
        help="split the documents by docid into N shards (files OUTPUT.shard-000.DIGEST.npz, ... beside "
        "the manifest OUTPUT, which is switched last: an interrupted rebuild leaves the old index), "
        "searched in parallel by search, dt and psq --jobs; built one shard at a "
        "time, reading the file once per shard (from stdin or with --stopwords-top: in memory)",
    )
    p.add_argument("--lang", required=True, type=language, help="language code of the documents (e.g. es, en, de)")
    add_analysis_options(p)
    p.add_argument(
        "--stopwords-top",
        metavar="N",
        type=nonnegative_int,
        default=0,
        help="also drop the N most frequent terms of the collection",
    )
    f = p.add_argument_group("fields (default: detected)")
    f.add_argument(
        "--id-field",
        default=None,
        metavar="NAME",
        help="JSONL key or TSV header column of the document id (docid, doc_id, id, _id are detected)",
    )
    f.add_argument(
        "--text-fields",
        default=None,
        metavar="NAME[+NAME]",
        help="key(s) of the text, e.g. contents or title+text (joined by a space; detected: title+text, "
        "text, contents; in a TSV header also title+body, body, content, passage)",
    )
    f.add_argument(
        "--header",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the TSV's first line is a header (default: detected from known column names)",
    )
    p.add_argument("--keep-case", action="store_true", help="do not lowercase")
    p.add_argument("--keep-punctuation", action="store_true", help="keep punctuation-only tokens")
    add_jobs(p, default=tokenize_jobs())
    add_quiet(p)


def run(args) -> int:
    from clirkit.analysis import Analyzer
    from clirkit.cli.common import analysis_settings, listed_file, say_unmatched_stopwords
    from clirkit.errors import ClirkitError
    from clirkit.fileio import check_outputs, display_name
    from clirkit.formats import iter_located_documents  # (lineno, docid, text): see Index.build(source=...)
    from clirkit.langcheck import SAMPLE, say_language_notices
    from clirkit.progress import say
    from clirkit.retrieval.index import Index, drop_terms, most_frequent_terms
    from clirkit.retrieval.shards import ShardedIndex

    check_outputs({"-o": args.output}, {"DOCUMENTS": args.documents, "--stopwords": listed_file(args.stopwords)})
    analyzer = Analyzer(
        args.lang, lowercase=not args.keep_case, strip_punctuation=not args.keep_punctuation, **analysis_settings(args)
    )
    say_unmatched_stopwords(analyzer, args.stopwords, quiet=args.quiet)
    start = time.perf_counter()

    def documents():
        return iter_located_documents(
            args.documents, id_field=args.id_field, text_fields=args.text_fields, header=args.header
        )

    source = display_name(args.documents)
    if args.shards > 1 and args.documents != "-" and args.stopwords_top == 0:  # one shard in memory at a time
        sharded = ShardedIndex.build(
            documents, args.shards, analyzer, args.output, jobs=args.jobs, quiet=args.quiet, source=source
        )
        s, lengths = sharded.stats(), _shard_lengths(sharded)
    else:  # the whole index in memory (stdin cannot be read once per shard; corpus stopwords need all counts)
        index = Index.build(documents(), analyzer, quiet=args.quiet, jobs=args.jobs, source=source)
        if args.stopwords_top >= index.n_terms > 0:
            raise ClirkitError(
                f"--stopwords-top {args.stopwords_top} would drop every term of the index (it has {index.n_terms}): "
                f"give a smaller number"
            )
        if args.stopwords_top > 0:
            index = drop_terms(index, most_frequent_terms(index, args.stopwords_top))
        s, lengths = index.stats(), [(index.doc_lengths, lambda: index.docids)]
        if args.shards > 1:
            ShardedIndex.split(index, args.shards).save(args.output)
        else:
            index.save(args.output)
    shards = f" in {args.shards} shards" if args.shards > 1 else ""
    say(
        f"indexed {s['n_docs']} documents, {s['n_terms']} terms, {s['n_postings']} postings{shards} "
        f"in {time.perf_counter() - start:.1f} s -> {args.output}",
        quiet=args.quiet,
    )
    _say_empty_documents(lengths, s["n_docs"], quiet=args.quiet)
    if args.documents != "-":  # (standard input is read once)
        sample = [text for _, _, text in itertools.islice(documents(), SAMPLE)]
        say_language_notices(((sample, analyzer.lang, f"the documents of {source}"),))
    return 0


def _shard_lengths(index) -> list:
    """``(doc_lengths, docids())`` of each shard of a saved sharded index, its lengths read alone from the file
    (the docids, when asked, as the search reads them: :meth:`ShardedIndex._docids`)."""
    import numpy as np

    def lengths(number: int) -> np.ndarray:
        with np.load(index._folder() / index.records[number]["file"], allow_pickle=False) as npz:
            return npz["doc_lengths"]

    return [(lengths(i), lambda i=i: index._docids(i)) for i in range(index.n_shards)]


def _say_empty_documents(lengths: list, n_docs: int, *, quiet: bool) -> None:
    """Say on stderr how many documents hold no term after the analysis (empty, punctuation, a script the
    analysis drops): no query can find them. ``lengths``: ``(doc_lengths, docids())`` per part, in docid order."""
    from clirkit.errors import counted
    from clirkit.progress import say

    counts = [int((part == 0).sum()) for part, _ in lengths]
    if sum(counts):
        part, docids = lengths[next(k for k, c in enumerate(counts) if c)]
        first = str(docids()[int((part == 0).argmax())])
        why = "empty, stopwords, punctuation or symbols only"
        said = (
            f"none of the {counted(n_docs, 'document')} holds a term after the analysis ({why}): no query can find "
            f"any; check the documents' language (--lang) and --stopwords"
            if sum(counts) == n_docs
            else f"{sum(counts):,} of {counted(n_docs, 'document')} {'holds' if sum(counts) == 1 else 'hold'} no term "
            f"after the analysis ({why}; first: {first}): no query can find {'it' if sum(counts) == 1 else 'them'}"
        )
        say(f"note: {said}", quiet=quiet)
