"""Arguments that stand for analyzed text, checked where the Python API takes them
(:meth:`~clirkit.retrieval.index.Index.from_tokens`, :class:`~clirkit.documents.Documents`): an
:class:`~clirkit.analysis.Analyzer`, token lists. Beside the index, as it imports only the foundation modules."""

from __future__ import annotations

from typing import Collection, Mapping

from clirkit.analysis import Analyzer
from clirkit.errors import ClirkitError, cut_repr


def given_analyzer(analyzer, what: str) -> Analyzer:
    """``analyzer`` if it is an :class:`~clirkit.analysis.Analyzer`; ClirkitError ``WHAT: expected an Analyzer ...``
    otherwise (a language code such as ``"es"`` is told to be given as ``Analyzer("es")``)."""
    if isinstance(analyzer, Analyzer):
        return analyzer
    hint = f": give Analyzer({analyzer!r}) for that language" if isinstance(analyzer, str) else ""
    raise ClirkitError(
        f"{what}: expected an Analyzer (clirkit.analysis.Analyzer), got {cut_repr(analyzer)}, a "
        f"{type(analyzer).__name__}{hint}"
    )


def check_token_lists(token_lists: list, what: str) -> None:
    """ClirkitError ``WHAT: document N (in input order) is ..., not a list of its terms`` for the first of
    ``token_lists`` (one per document) that is a str or bytes (a text not tokenized), None, a mapping or no
    collection; its terms are left to the index, which checks each distinct one."""
    for n, tokens in enumerate(token_lists, 1):
        if type(tokens) is list:
            continue
        if isinstance(tokens, (str, bytes)):
            raise ClirkitError(
                f"{what}: document {n} (in input order) is a {type(tokens).__name__}, not a list of "
                f"its terms (tokenize it first, e.g. with Analyzer.tokenize)"
            )
        if isinstance(tokens, Mapping) or not isinstance(tokens, Collection):  # (a dict's keys: each counted once)
            raise ClirkitError(
                f"{what}: document {n} (in input order) is {cut_repr(tokens)} ({type(tokens).__name__}), not a list of "
                f"its terms"
            )
