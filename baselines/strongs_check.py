"""Translation quality check: IBM Model 1 top-1 translations against Strong's-number links.

The OSIS exports of the King James Version (engKJV2006eb) and the Reina-Valera 1909
(spaRV1909eb) in ``../shared/data/bible`` tag words with Strong's numbers
(``<w lemma="strong:H0776">y la tierra</w>``): a word of either Bible and a word of the other
carrying the same number in the same verse translate the same Hebrew/Greek word. That gives
silver word links, independent of any statistical aligner, against which a lexical table can be
scored.

Protocol (all of it is in this script):

1. Verses: every verse present in both OSIS files (both use KJV versification). A verse's text is
   everything inside ``<verse>`` except ``<note>`` elements (markup removed, entities decoded).
2. Table: IBM Model 1 p(English word | Spanish word), 5 EM iterations, NULL word, trained on the
   RV1909 -> KJV verse pairs, both sides tokenized with clirkit's default analyzers (``es``, ``en``).
3. Words evaluated: the 1,000 most frequent Spanish tokens of the RV1909 verse texts (ties by word).
4. Links: inside a verse, each ``<w>`` element gives a set of Strong's numbers (leading zeros
   ignored) and its tokens (same analyzers). A Spanish token occurrence inside an element with
   numbers A is *linked* to every English token of the same verse inside a KJV element whose
   numbers meet A. For a Spanish word s, n(s) = its occurrences linked to at least one English
   token, and c(s, e) = how many of them are linked to English word e.
5. Gold: the Strong's-linked translations of s are G(s) = {e : c(s, e) >= max(2, 0.1 n(s))}
   (linked in at least 10% of s's linked occurrences, and at least twice, which drops accidental
   links, e.g. RV1909 groups articles and conjunctions with the content word they precede).
6. Precision@1 = the fraction of the evaluated words with n(s) > 0 whose most probable English
   translation (ties: alphabetical) is in G(s). Words never linked (n(s) = 0: untagged function
   words) are left out and counted. Also reported: the occurrence-level score, the mean over words
   of c(s, top1(s)) / n(s), and, as a reference point, the same precision for the naive
   "translation" by the English word that co-occurs in the most verses with s.

    python baselines/strongs_check.py            # prints the numbers (about 2-4 minutes)
    python baselines/strongs_check.py --json strongs.json --words 1000

Reads ``../shared/data/bible`` (or ``--bible DIR``); exits with a message if it is absent.
"""

from __future__ import annotations

import argparse
import gzip
import html
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

DEFAULT_BIBLE = Path(__file__).resolve().parents[2] / "shared" / "data" / "bible"
_VERSE = re.compile(r'<verse osisID="([^"]+)"[^>]*>(.*?)</verse>')
_NOTE = re.compile(r"<note\b.*?</note>", re.S)
_W = re.compile(r"<w\b([^>]*)>(.*?)</w>", re.S)
_STRONG = re.compile(r"strong:([HG])0*(\d+)")
_TAG = re.compile(r"<[^>]+>")


def read_osis(path: Path) -> dict[str, tuple[str, list[tuple[frozenset, str]]]]:
    """osis_id -> (verse text, [(Strong's numbers, element text) for each tagged <w> element])."""
    verses = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            for m in _VERSE.finditer(line):
                body = _NOTE.sub(" ", m.group(2))
                words = []
                for w in _W.finditer(body):
                    numbers = frozenset(a + n for a, n in _STRONG.findall(w.group(1)))
                    if numbers:
                        words.append((numbers, html.unescape(_TAG.sub(" ", w.group(2)))))
                verses[m.group(1)] = (" ".join(html.unescape(_TAG.sub(" ", body)).split()), words)
    return verses


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bible", default=str(DEFAULT_BIBLE), help="folder with the two .osis.xml.gz files")
    ap.add_argument("--words", type=int, default=1000, help="most frequent Spanish words to evaluate")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--min-share", type=float, default=0.1, help="gold: linked in this share of occurrences")
    ap.add_argument("--jobs", type=int, default=1, help="tokenization processes")
    ap.add_argument("--json", default=None, help="also write the numbers here")
    args = ap.parse_args(argv)

    from clirkit.analysis import Analyzer, frequent_terms
    from clirkit.translation import train_ibm1

    bible = Path(args.bible)
    kjv_path, rv_path = bible / "engKJV2006eb.osis.xml.gz", bible / "spaRV1909eb.osis.xml.gz"
    if not (kjv_path.exists() and rv_path.exists()):
        print(f"strongs_check: {bible} lacks the OSIS files; nothing to do", file=sys.stderr)
        return 1
    started = time.perf_counter()
    kjv, rv = read_osis(kjv_path), read_osis(rv_path)
    ids = [i for i in rv if i in kjv]
    es_an, en_an = Analyzer("es"), Analyzer("en")
    es_tokens = es_an.tokenize_many([rv[i][0] for i in ids], jobs=args.jobs)
    en_tokens = en_an.tokenize_many([kjv[i][0] for i in ids], jobs=args.jobs)

    t0 = time.perf_counter()
    table = train_ibm1(es_tokens, en_tokens, iterations=args.iterations)
    train_seconds = time.perf_counter() - t0
    best = table.best_targets()
    top1 = {w: str(table.target_vocab[b]) for w, b in zip(table.source_vocab.tolist(), best.tolist()) if b >= 0}

    evaluated = frequent_terms(es_tokens, args.words)
    wanted = set(evaluated)

    # tokens of every tagged element, tokenized in one batch per language
    es_elems = [(k, nums, text) for k, i in enumerate(ids) for nums, text in rv[i][1]]
    en_elems = [(k, nums, text) for k, i in enumerate(ids) for nums, text in kjv[i][1]]
    es_elem_tokens = es_an.tokenize_many([t for _, _, t in es_elems], jobs=args.jobs)
    en_elem_tokens = en_an.tokenize_many([t for _, _, t in en_elems], jobs=args.jobs)
    en_by_verse: dict[int, list[tuple[frozenset, list[str]]]] = defaultdict(list)
    for (k, nums, _), toks in zip(en_elems, en_elem_tokens):
        en_by_verse[k].append((nums, toks))

    linked_occurrences: Counter[str] = Counter()
    link_counts: dict[str, Counter[str]] = defaultdict(Counter)
    for (k, nums, _), toks in zip(es_elems, es_elem_tokens):
        mine = [t for t in toks if t in wanted]
        if not mine:
            continue
        linked = {e for other, etoks in en_by_verse.get(k, ()) if nums & other for e in etoks}
        if not linked:
            continue
        for s in mine:
            linked_occurrences[s] += 1
            link_counts[s].update(linked)

    # reference point: the English word co-occurring in most verses with s
    import scipy.sparse as sp

    def incidence(token_lists, vocab):
        rows = np.repeat(np.arange(len(token_lists)), [len(set(t)) for t in token_lists])
        cols = [vocab[w] for t in token_lists for w in sorted(set(t))]
        return sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(len(token_lists), len(vocab)))

    es_vocab = {w: i for i, w in enumerate(evaluated)}
    en_words = sorted({w for t in en_tokens for w in t})
    en_vocab = {w: i for i, w in enumerate(en_words)}
    es_inc = incidence([[w for w in t if w in es_vocab] for t in es_tokens], es_vocab)
    cooc = (es_inc.T @ incidence(en_tokens, en_vocab)).toarray()
    cooc_top = {s: en_words[int(np.argmax(cooc[es_vocab[s]]))] for s in evaluated}

    hits = cooc_hits = 0
    occurrence_scores = []
    scored = [s for s in evaluated if linked_occurrences[s] > 0]
    for s in scored:
        n = linked_occurrences[s]
        gold = {e for e, c in link_counts[s].items() if c >= max(2, args.min_share * n)}
        t = top1.get(s)
        hits += t in gold
        cooc_hits += cooc_top[s] in gold
        occurrence_scores.append(link_counts[s].get(t, 0) / n)
    result = {
        "pairs": len(ids),
        "iterations": args.iterations,
        "train_seconds": round(train_seconds, 2),
        "words": len(evaluated),
        "words_scored": len(scored),
        "words_never_linked": len(evaluated) - len(scored),
        "precision_at_1": hits / len(scored),
        "occurrence_precision": float(np.mean(occurrence_scores)),
        "cooccurrence_baseline_precision": cooc_hits / len(scored),
        "min_share": args.min_share,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(
        f"IBM Model 1 p(en|es) on {len(ids)} RV1909->KJV verse pairs, {args.iterations} iterations "
        f"({train_seconds:.1f} s)"
    )
    print(
        f"{len(scored)} of the {len(evaluated)} most frequent Spanish words have Strong's links "
        f"({result['words_never_linked']} never linked, left out)"
    )
    print(f"precision@1 of the top-1 translation against the Strong's-linked words: {result['precision_at_1']:.4f}")
    print(
        f"occurrence-level (mean share of linked occurrences where top-1 is linked): "
        f"{result['occurrence_precision']:.4f}"
    )
    print(f"reference: most co-occurring English word: precision@1 {result['cooccurrence_baseline_precision']:.4f}")
    misses = [
        (s, top1.get(s))
        for s in scored
        if top1.get(s)
        not in {e for e, c in link_counts[s].items() if c >= max(2, args.min_share * linked_occurrences[s])}
    ]
    print("first misses (word -> top-1):", ", ".join(f"{s}->{t}" for s, t in misses[:15]))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
