"""Term-count files of the language model's background (the reference PSQ's ``COUNT TOKEN`` lines, e.g. its
``eng.cnt``), read into counts per analyzed term (:func:`read_counts`, used by :func:`clirkit.docpsq.background`)."""

from __future__ import annotations

import os
from itertools import repeat
from typing import Iterable, Sequence

from clirkit.errors import ClirkitError, located, quoted


def read_counts(path: str | os.PathLike[str], analyzer) -> tuple[dict[str, int], int]:
    """A term-count file (the reference's ``COUNT TOKEN`` lines, e.g. its ``eng.cnt``) as ``({term: count},
    total)``: each token analyzed by ``analyzer`` (its terms share the count; a stopword adds nothing), total
    the sum of every line's count. A malformed line is ``FILE:LINE: problem``; counts that are all 0 are an error
    naming the file."""
    from clirkit.fileio import display_name, iter_lines

    name = display_name(path)
    largest = 2**63 - 1  # a count fits int64
    tokens, counts, total = [], [], 0
    for lineno, line in iter_lines(path):
        fields = line.split()
        if len(fields) != 2 or not (fields[0].isascii() and fields[0].isdigit()):
            raise located(
                name, lineno, f"expected COUNT TOKEN (a count in ASCII digits 0-9, a space, a word), got {quoted(line)}"
            )
        digits = fields[0].lstrip("0") or "0"
        if len(digits) > 19 or int(digits) > largest:  # the length first: int() refuses 4,300 digits and more
            raise located(
                name,
                lineno,
                f"count {fields[0][:20]}{'...' if len(fields[0]) > 20 else ''} is too "
                f"large (at most {largest}, a 64-bit integer)",
            )
        count = int(digits)
        tokens.append(fields[1])
        counts.append(count)
        total += count
    if not tokens:
        raise ClirkitError(f"{name}: no COUNT TOKEN line: a term-count file holds one line per word")
    if total == 0:  # p_bg would be 1 for every term: no background at all
        raise ClirkitError(
            f"{name}: every count is 0: a term-count file gives each word's occurrences in a corpus (COUNT TOKEN), "
            f"at least one of them > 0"
        )
    return count_terms(analyzer.tokenize_many(tokens), counts), total


def count_terms(token_lists: Iterable[Sequence[str]], weights: Iterable[int] | None = None) -> dict[str, int]:
    """``{term: occurrences}`` over ``token_lists`` (each list weighted by ``weights``, default 1)."""
    counts: dict[str, int] = {}
    for tokens, w in zip(token_lists, weights if weights is not None else repeat(1)):
        for t in tokens:
            counts[t] = counts.get(t, 0) + w
    return counts
