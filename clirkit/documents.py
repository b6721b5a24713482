"""A collection's documents: ids, texts, and their tokens per analyzer, each tokenization done once.

The index, the boosted ranker and the SCS model all read the target-language documents through the
same analyzer; :class:`Documents` keeps the token lists it made so an experiment tokenizes a
collection once however many systems use it.
"""

from __future__ import annotations

import json
from typing import Iterable, Mapping, Sequence

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError, cut_repr
from clirkit.parallel import check_jobs
from clirkit.retrieval.tokenlists import check_token_lists, given_analyzer


class Documents:
    """Document ids with their texts (or only their tokens).

    Args:
        docids: the document ids, unique.
        texts: the texts, aligned with ``docids`` (None when only tokens are known).
        tokens, analyzer: token lists already made by ``analyzer`` (kept for :meth:`tokens`).
        jobs: worker processes for tokenization (an int >= 1, or -1: one per core).

    ClirkitError for an id that is not text or that no run file can hold (:data:`~clirkit.runinputs.ID_RULE`), an
    id given twice, a text that is not a str (None, NaN: give ``""`` for a document without text), ``tokens`` that
    are no list of token lists (a str where a document's token list is expected), an ``analyzer`` that is no
    :class:`~clirkit.analysis.Analyzer`, and ``jobs`` of another kind (:func:`clirkit.parallel.check_jobs`).
    """

    def __init__(
        self,
        docids: Sequence[str],
        texts: Sequence[str] | None = None,
        *,
        tokens: Sequence[Sequence[str]] | None = None,
        analyzer: Analyzer | None = None,
        jobs: int = 1,
    ) -> None:
        for name, given in (("docids", docids), ("texts", texts)):
            if isinstance(given, str) or not (isinstance(given, Iterable) or (given is None and name == "texts")):
                raise ClirkitError(f"{name}: expected a sequence of str, got {given!r:.60}")
        self.docids = list(docids)
        self.texts = None if texts is None else list(texts)
        check_jobs(jobs)
        self.jobs = jobs
        self._tokens: dict[str, list] = {}
        if self.texts is not None and len(self.texts) != len(self.docids):
            raise ClirkitError(f"{len(self.docids)} document ids but {len(self.texts)} texts")
        _check_documents(self.docids, self.texts)
        if tokens is not None:
            if analyzer is None:
                raise ClirkitError("document tokens need the analyzer that made them")
            given_analyzer(analyzer, "Documents(analyzer=)")
            if isinstance(tokens, (str, bytes, Mapping)) or not isinstance(tokens, Iterable):
                raise ClirkitError(
                    f"Documents(tokens=): expected a list of token lists (one per document), got {cut_repr(tokens)}"
                )
            tokens = list(tokens)
            if len(tokens) != len(self.docids):
                raise ClirkitError(f"{len(self.docids)} document ids but {len(tokens)} token lists")
            check_token_lists(tokens, "Documents(tokens=)")
            self._tokens[_key(analyzer)] = tokens

    def __len__(self) -> int:
        return len(self.docids)

    @classmethod
    def of(cls, documents) -> "Documents":
        """``documents`` as :class:`Documents`: itself, or a ``(docids, texts)`` pair."""
        if isinstance(documents, Documents):
            return documents
        try:
            docids, texts = documents
        except (TypeError, ValueError):
            raise ClirkitError("documents must be a Documents or a (docids, texts) pair") from None
        return cls(docids, texts)

    def tokens(self, analyzer: Analyzer, *, quiet: bool = True) -> list[list[str]]:
        """The token lists of every document by ``analyzer`` (made on first use, then kept); ClirkitError for an
        ``analyzer`` that is no :class:`~clirkit.analysis.Analyzer`."""
        key = _key(given_analyzer(analyzer, "Documents.tokens(analyzer)"))
        if key not in self._tokens:
            if self.texts is None:
                raise ClirkitError(
                    f"these documents were given as tokens of another analyzer ({analyzer!r} needs their texts)"
                )
            self._tokens[key] = analyzer.tokenize_many(
                self.texts, quiet=quiet, jobs=self.jobs, desc="tokenizing documents"
            )
        return self._tokens[key]


def _key(analyzer: Analyzer) -> str:
    return json.dumps(analyzer.to_dict(), sort_keys=True)


def _check_documents(docids: list, texts: list | None) -> None:
    """ClirkitError for the first document whose id or text :class:`Documents` refuses (see there)."""
    import numpy as np

    from clirkit.runinputs import ID_RULE, first_bad_id

    for values, what in ((docids, "id"), (texts or (), "text")):
        odd = next((i for i, value in enumerate(values) if not isinstance(value, str)), None)
        if odd is not None:
            named = f"document {odd + 1}" if what == "id" else f"document {docids[odd]!r} (number {odd + 1})"
            fix = f"give ids {ID_RULE}" if what == "id" else "give each document a text ('' for none)"
            raise ClirkitError(f"{named}: its {what} is {values[odd]!r}, not text: {fix}")
    bad = first_bad_id(np.asarray(docids, dtype=str)) if docids else None
    if bad is not None:
        raise ClirkitError(f"document {bad[0] + 1}: its id {docids[bad[0]]!r} {bad[1]}: give ids {ID_RULE}")
    if len(set(docids)) != len(docids):
        first: dict[str, int] = {}
        i, twice = next((i, d) for i, d in enumerate(docids) if first.setdefault(d, i) != i)
        raise ClirkitError(f"document id {twice!r} is given twice (documents {first[twice] + 1} and {i + 1})")
