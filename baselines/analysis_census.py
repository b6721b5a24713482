"""Which texts of the bundled collections an analysis setting changes: the census behind a changed analysis default.

For every collection (or those named), every text clirkit analyzes (the queries of every split in the source
language, the documents in the target language, both sides of the parallel corpus) is tokenized by the language's
default ``Analyzer`` and by the same analyzer with ``--old`` settings (``KEY=VALUE``, VALUE read as JSON); a text
whose tokens differ is counted and its first characters kept. A collection with no such text ranks the same under
both settings (every system reads text through these analyzers), so its rows of a defaults table carry over.

    python baselines/analysis_census.py --old normalization_version=1 -o census.json
    python baselines/analysis_census.py --old compose=false --collections gettext-es-en

Output: a JSON object {collection: {language: [texts changed, texts, [first 80 characters of up to 3 of them]]}},
and one line per collection on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from clirkit import datasets
from clirkit.analysis import Analyzer


def texts_by_language(name: str) -> dict[str, list[str]]:
    """Every text of collection ``name`` clirkit analyzes, by language: queries, documents, parallel corpus."""
    collection = datasets.load(name)
    source, target = collection.source_lang, collection.target_lang
    texts: dict[str, list[str]] = {source: [], target: []}
    for split in collection.splits:
        texts[source].extend(collection.queries(split).values())
    texts[target].extend(collection.documents()[1])
    source_side, target_side = collection.parallel()
    texts[source].extend(source_side)
    texts[target].extend(target_side)
    return texts


def changed(texts: list[str], lang: str, old: dict) -> list[int]:
    """The positions of the ``texts`` whose tokens under ``Analyzer(lang)`` and ``Analyzer(lang, **old)`` differ."""
    new_tokens = Analyzer(lang).tokenize_many(texts)
    old_tokens = Analyzer(lang, **old).tokenize_many(texts)
    return [i for i, (a, b) in enumerate(zip(new_tokens, old_tokens)) if a != b]


def census(names: list[str], old: dict) -> dict[str, dict[str, list]]:
    """For each collection and language: [texts changed, texts, up to 3 changed texts' first 80 characters]."""
    found = {}
    for name in names:
        row = {}
        for lang, texts in texts_by_language(name).items():
            where = changed(texts, lang, old)
            row[lang] = [len(where), len(texts), [texts[i][:80] for i in where[:3]]]
        found[name] = row
        print(name, {lang: f"{n} of {total}" for lang, (n, total, _) in row.items()}, file=sys.stderr, flush=True)
    return found


def setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` as (key, value), VALUE read as JSON (``false``, ``1``, ``"bigrams"``)."""
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        raise argparse.ArgumentTypeError(f'{key}: VALUE must be JSON (false, 1, "text"), got {value!r}') from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", nargs="+", type=setting, required=True, help="the settings before (KEY=VALUE)")
    parser.add_argument("--collections", nargs="+", default=datasets.names(), choices=datasets.names())
    parser.add_argument("-o", "--output", required=True, help="the JSON file written")
    args = parser.parse_args(argv)
    found = census(args.collections, dict(args.old))
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump(found, out, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
