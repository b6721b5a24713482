"""clirkit's faster Moses class gives sacremoses' own answers (the oracle: the methods it replaces)."""

import random

import pytest
from sacremoses import MosesTokenizer

from clirkit.mosestokens import moses_class

PIECES = list("aAbZ. 0 9éÉñß#,\t\n\u00a0\u2028\x1c\x85.") + ["No.", "Nr.", "p.", "Mr.", "art.", "I.", "etc.", "a.b."]


def _texts(prefixes: list[str], count: int, seed: int) -> list[str]:
    """Random texts of single characters, the language's own non-breaking prefixes with or without their full stop,
    digits and spaces (every case of the rule: a prefix, a numeric-only prefix before a digit, a next lowercase
    word, a dot inside the prefix, the last token)."""
    rng = random.Random(seed)
    words = prefixes + ["x", "1", "10", "aa"]
    out = []
    for _ in range(count):
        parts = [
            rng.choice(PIECES) if rng.random() < 0.5 else rng.choice(words) + rng.choice([".", "", ". ", " "])
            for _ in range(rng.randint(0, 10))
        ]
        out.append("".join(rng.choice(["", " "]) + p for p in parts))
    return out


@pytest.mark.parametrize("lang", ["en", "es", "de", "fr", "el", "pt", "fi", "ru", "xx"])
def test_the_non_breaking_prefix_rule_gives_sacremoses_answers(lang):
    moses = moses_class()(lang=lang)
    prefixes = sorted(moses.NONBREAKING_PREFIXES)[:300]
    for text in _texts(prefixes, 3000, seed=len(lang)):
        assert moses.handles_nonbreaking_prefixes(text) == MosesTokenizer.handles_nonbreaking_prefixes(moses, text)


def test_the_class_tokenizes_as_sacremoses_does():
    ours, theirs = moses_class()(lang="en"), MosesTokenizer(lang="en")
    text = "Mr. Smith paid 3.5 U.S. dollars for No. 7, etc. in St. Louis. Fig. 2 shows it. No. we said. e.g. so."
    assert ours.tokenize(text, escape=False) == theirs.tokenize(text, escape=False)
