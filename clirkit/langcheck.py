"""Whether texts read as the language they are said to be in, by their function words.

The share of a text's words that are stopwords of a language (the Snowball project's lists, bundled) tells most
languages written with spaces apart: English prose holds about 40% English stopwords and a few percent Spanish
ones. :func:`language_notice` compares the language a file is declared in with the list that fits its words best,
and says so in one line when another fits far better (a collection whose ``source_lang`` and ``target_lang`` are
swapped, queries given to a table of another language). It never decides for the user: a language without a list,
or texts too few or too short to tell, give no notice.
"""

from __future__ import annotations

import re
from typing import Sequence

_WORD = re.compile(r"[^\W\d_]+")
SAMPLE = 2000  # texts looked at, spread over the file
MIN_WORDS = 200  # fewer words than this tell nothing
MIN_SHARE = 0.15  # the best list's share of the words, at least
RATIO = 3.0  # and at least this many times the declared language's share


def stopword_shares(texts: Sequence[str]) -> dict[str, float]:
    """The share of the words of ``texts`` (at most :data:`SAMPLE` of them, evenly spread) that are stopwords of each
    language with a Snowball list; empty when they hold fewer than :data:`MIN_WORDS` words."""
    from clirkit.analysis import SNOWBALL_STOPWORDS, snowball_stopwords

    step = max(1, len(texts) // SAMPLE)
    words = [w for text in texts[::step] for w in _WORD.findall(text.lower())]
    if len(words) < MIN_WORDS:
        return {}
    shares = {}
    for lang in sorted(SNOWBALL_STOPWORDS - {"nb"}):  # nb's list is no's
        listed = frozenset(snowball_stopwords(lang))
        shares[lang] = sum(w in listed for w in words) / len(words)
    return shares


def language_notice(texts: Sequence[str], declared: str, what: str) -> str | None:
    """One line saying that ``texts`` (``what``: e.g. ``"the queries of col.toml"``) read as another language than
    ``declared`` (an ISO 639-1 code), naming it and both shares; None when they read as ``declared``, or when their
    words cannot tell."""
    shares = stopword_shares(texts)
    if not shares:
        return None
    best = max(shares, key=lambda lang: (shares[lang], lang))
    own = shares.get("no" if declared == "nb" else declared, 0.0)
    if best == declared or shares[best] < MIN_SHARE or shares[best] < RATIO * own:
        return None
    return (
        f"{what} read as {best!r}, not {declared!r}: {100 * shares[best]:.0f}% of their words are {best!r} "
        f"stopwords, {100 * own:.0f}% {declared!r} ones (are the languages swapped?)"
    )


def say_language_notices(sides) -> None:
    """:func:`language_notice` of each ``(texts, declared, what)`` of ``sides`` (none for a side without a
    language), said on stderr under ``--quiet`` too: a swapped language loses effectiveness with no other sign
    (within :func:`clirkit.progress.held_until_checked`, once its checks pass)."""
    from clirkit.progress import say_unless_stopped

    for texts, declared, what in sides:
        notice = language_notice(list(texts or ()), declared, what) if declared else None
        if notice:
            say_unless_stopped(notice)
