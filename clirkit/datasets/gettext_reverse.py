"""``gettext-en-{zh,ja,ko,th}``: English program messages -> their translations, the documents written in a
language without spaces between words.

The gettext collections ``gettext-LANG-en`` (:mod:`clirkit.datasets.gettext_catalogs`) ask from the translated
message for its English original; these ask the other way, as NeuCLIR and HC4 do (English topics, Chinese
documents): a query is an English message, its relevant document (grade 1) the translation(s) of it, among the
translated messages of every split. They are derived from the bundled ``gettext-LANG-en`` alone (no download):

- documents: every query of ``gettext-LANG-en`` (train, dev and test), its qid the docid;
- queries of split s: the English documents judged for the split-s queries of ``gettext-LANG-en``, their docid
  the qid; an English message judged in an earlier split (dev before test; train shares none with them by
  construction) is left out of the later one (counted);
- qrels: the same judgments read the other way;
- parallel corpus: ``gettext-LANG-en``'s (its training messages), English as the source side.

A query's translation is a document in every split, so a system sees the documents of the dev and test splits
whatever split it searches (as the English originals are in ``gettext-LANG-en``'s documents).

    python -m clirkit.datasets.gettext_reverse -o clirkit/datasets/data      # all four, from the bundled ones
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import cast

import numpy as np

from clirkit.datasets._store import VariantData, describe_counts, write_variant
from clirkit.errors import ClirkitError
from clirkit.progress import say
from clirkit.run import Qrels

LANGUAGES = ("zh", "ja", "ko", "th")
SPLITS = ("train", "dev", "test")


def reverse_variant(lang: str) -> VariantData:
    """``gettext-en-LANG`` (``standard``) from the bundled ``gettext-LANG-en`` (module docstring)."""
    from clirkit import datasets

    forward = datasets.load(f"gettext-{lang}-en")
    english = dict(zip(*forward.documents()))
    docs: dict[str, str] = {}
    queries: dict[str, dict[str, str]] = {}
    qrels: dict[str, Qrels] = {}
    asked: set[str] = set()
    left_out = {s: 0 for s in SPLITS}
    for s in SPLITS:
        docs.update(forward.queries(s))
        judged = forward.qrels(s)
        texts: dict[str, str] = {}
        rows: list[tuple[str, str]] = []
        for translation, original in sorted(zip(judged.qids.tolist(), judged.docids.tolist()), key=lambda r: r[::-1]):
            if original in asked and original not in texts:
                left_out[s] += 1
                continue
            texts[original] = english[original]
            rows.append((original, translation))
        asked.update(texts)
        queries[s] = texts
        qrels[s] = Qrels(np.asarray([q for q, _ in rows]), np.asarray([d for _, d in rows]), np.ones(len(rows), int))
    sources, targets = forward.parallel()
    docids = sorted(docs)
    return VariantData(
        name=f"gettext-en-{lang}",
        variant="standard",
        source_lang="en",
        target_lang=lang,
        description=(
            f"English original of a program message (Debian gettext catalogs) -> its {lang} translation among the "
            f"{lang} messages of all the catalogs; grade 1 = a translation; derived from gettext-{lang}-en"
        ),
        docids=docids,
        doc_texts=[docs[d] for d in docids],
        pair_ids=forward.parallel_ids(),
        pair_sources=targets,
        pair_targets=sources,
        queries=queries,
        qrels=qrels,
        extra_counts={"queries_left_out_judged_in_earlier_split": left_out},
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m clirkit.datasets.gettext_reverse", description=__doc__.split("\n")[0]
    )
    parser.add_argument("-o", "--output", required=True, help="output folder (gets gettext-en-XX/standard/)")
    parser.add_argument("--languages", nargs="+", default=list(LANGUAGES), choices=LANGUAGES)
    parser.add_argument("-q", "--quiet", action="store_true", help="no messages on stderr")
    args = parser.parse_args(argv)
    try:
        for lang in args.languages:
            data = reverse_variant(lang)
            manifest = write_variant(data, Path(args.output) / data.name / data.variant)
            counts = cast(dict, manifest["counts"])
            say(f"{data.name}: {describe_counts(data.variant, counts)}", quiet=args.quiet)
    except ClirkitError as exc:
        print(f"gettext_reverse: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the output folder is a file, or cannot be made or written
        print(f"gettext_reverse: error: {exc.filename or args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
