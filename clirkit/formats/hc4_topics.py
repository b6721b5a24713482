"""HC4/NeuCLIR topic files (JSONL) as queries, for :func:`clirkit.formats.read_queries`: one topic a line,
``{"topic_id": ..., "topics": [{"lang": "eng", "source": "original", "topic_title": ..., "topic_description": ...,
"topic_narrative": ...}, ...]}``; the version in the query language is read (the original or a human translation
before a machine translation). The other topic formats, the field names and the language codes are in
:mod:`clirkit.formats.topics`.
"""

from __future__ import annotations

import json
from typing import Iterable, Sequence

from clirkit.errors import empty_file, located, repeated_id
from clirkit.formats.ids import check_id
from clirkit.formats.records import json_string
from clirkit.formats.topics import _LANG_HINT, lang_codes

_HC4_KEYS = {"title": "topic_title", "desc": "topic_description", "narr": "topic_narrative"}


def is_hc4(obj: dict) -> bool:
    """Whether a JSON record looks like an HC4/NeuCLIR topic: it has a ``topics`` list."""
    return isinstance(obj.get("topics"), list)


def _source_rank(entry: dict) -> int:
    source = str(entry.get("source", "")).lower()
    return 2 if "machine" in source else (0 if source in ("", "original") else 1)


def read_hc4_topics(
    name: str, records: Iterable[tuple[int, dict]], fields: Sequence[str], *, lang: str | None = None
) -> dict[str, str]:
    """``{qid: text}`` of HC4/NeuCLIR topic records ``(line, object)``: for each, the entry of ``topics``
    in ``lang`` (the only language present when ``lang`` is None); among several entries in that
    language, the original or a human translation before a machine translation. ``narr`` is the entry's
    ``topic_narrative``, else the record's ``narratives`` for that language (a text, or a mapping of
    texts joined in order)."""
    queries: dict[str, str] = {}
    where: dict[str, int] = {}
    codes = lang_codes(lang)
    for lineno, obj in records:
        if not is_hc4(obj):
            raise located(
                name,
                lineno,
                'expected an HC4/NeuCLIR topic like the first line ("topic_id" and a '
                f'"topics" list), found keys: {", ".join(list(obj)[:8]) or "none"}',
            )
        if "topic_id" not in obj:
            raise located(
                name,
                lineno,
                'topic without "topic_id": give each line its id (HC4/NeuCLIR topics are '
                '{"topic_id": ..., "topics": [...]})',
            )
        tid = obj["topic_id"]
        if isinstance(tid, int) and not isinstance(tid, bool):
            tid = str(tid)
        if not isinstance(tid, str):
            raise located(name, lineno, f'"topic_id" must be a string, got {type(tid).__name__}')
        qid = check_id(name, lineno, json_string(name, lineno, tid.strip(), "topic_id", True), "topic_id")
        if qid in where:
            raise repeated_id(name, lineno, "query id", qid, where[qid], "topic")
        entries = obj["topics"]
        for e in entries:
            if not isinstance(e, dict) or not isinstance(e.get("lang"), str):
                raise located(name, lineno, f'topic {qid}: each entry of "topics" must be an object with a "lang"')
            if not e["lang"] or not e["lang"].isprintable() or any(c.isspace() for c in e["lang"]):
                raise located(
                    name,
                    lineno,
                    f'topic {qid}: "lang" must be a language code such as "eng", got {json.dumps(e["lang"])[:40]}',
                )
        present = list(dict.fromkeys(e["lang"] for e in entries))
        if not present:
            raise located(
                name,
                lineno,
                f'topic {qid} has an empty "topics" list; give its versions, such as '
                '[{"lang": "eng", "topic_title": "...", "topic_description": "..."}]',
            )
        if lang is None:
            if len(present) > 1:
                raise located(
                    name, lineno, f"topic {qid} is given in several languages ({', '.join(present)}): {_LANG_HINT}"
                )
            matching = entries
        else:
            matching = [e for e in entries if e["lang"].lower() in codes]
            if not matching:
                raise located(
                    name,
                    lineno,
                    f"topic {qid} has no version in {lang} (languages: {', '.join(present)}); {_LANG_HINT}",
                )
        entry = min(matching, key=_source_rank)
        texts = []
        for f in fields:
            key = _HC4_KEYS[f]
            value = entry.get(key)
            if value is None and f == "narr":
                value = _narratives(obj.get("narratives"), entry["lang"])
            if value is None:
                hint = "" if f == "title" else "; ask for other fields with --query-fields, e.g. title"
                raise located(name, lineno, f'topic {qid} ({entry["lang"]}) has no "{key}"{hint}')
            if not isinstance(value, str):
                raise located(name, lineno, f'topic {qid}: "{key}" must be a string, got {type(value).__name__}')
            texts.append(" ".join(json_string(name, lineno, value, key, False).split()))
        where[qid] = lineno
        queries[qid] = " ".join(t for t in texts if t)
    if not queries:
        raise empty_file(
            name,
            "topics",
            'an HC4/NeuCLIR topic file holds one JSON object per line, {"topic_id": ..., "topics": [...]}',
        )
    return queries


def _narratives(narratives: object, lang: str) -> str | None:
    if not isinstance(narratives, dict):
        return None
    value = narratives.get(lang)
    if isinstance(value, dict):
        value = " ".join(v for v in value.values() if isinstance(v, str))
    return value if isinstance(value, str) else None
