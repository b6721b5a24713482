"""Topic files as queries: TREC SGML, CLEF XML, NTCIR XML and HC4/NeuCLIR JSONL (used by
:func:`clirkit.formats.read_queries`, which detects them from the content).

- **TREC** (``<top>``): ``<num> Number: 401``, ``<title> Topic: ...``, ``<desc> Description: ...``,
  ``<narr> Narrative: ...``; the field tags are usually left unclosed (a field then runs to the next
  tag) and the ``Number:``/``Topic:``/``Description:``/``Narrative:`` labels are dropped. CLEF 2000-2003
  topics are the same SGML with language-prefixed tags (``<EN-title>``, ``<ES-desc>``).
- **CLEF** XML (``<topic>``): ``<identifier>`` (or ``<num>``), ``<title>``, ``<description>``,
  ``<narrative>``, also language-prefixed (``<EN-title>``).
- **NTCIR** XML (``<TOPIC>``): ``<NUM>``, ``<TITLE>``, ``<DESC>``, ``<NARR>`` (whose nested ``<BACK>``
  and ``<RELE>`` are part of the narrative).
- **HC4/NeuCLIR** JSONL: ``{"topic_id": ..., "topics": [{"lang": "eng", "source": "original",
  "topic_title": ..., "topic_description": ..., "topic_narrative": ...}, ...]}``, one line per topic;
  the version in the query language is read (original or human translation before machine translation).
  Its reader is :mod:`clirkit.formats.hc4_topics`; this module holds the markup reader, the field names and
  the language codes both use.

One tolerant reader serves the three markup dialects (tags matched case-insensitively, closed or not, ``<t/>`` as
``<t />``; comments, ``<?xml ...?>``, ``<!DOCTYPE ...>`` (with its ``[...]`` declarations) and unknown tags such
as ``<dom>`` or ``<CONC>`` skipped, but a comment or CDATA section never closed is an error naming its line, not
the rest of the file hidden; entities such as ``&amp;``, ``&eacute;``, ``&#233;`` decoded; whitespace collapsed). A
markup file that is not valid UTF-8 (and declares no other encoding in ``<?xml ... encoding=...?>``) is read as
Latin-1, the encoding of old TREC and CLEF topic files, and said on stderr.

A query's text is the fields asked for (:data:`TOPIC_FIELDS`; ``title`` by default) joined by a space.
When a topic is given in several languages (HC4's ``topics`` list, CLEF files with ``<EN-title>`` and
``<ES-title>``), the caller's source language chooses; without it, the error names the languages present. A topic
given only in another language than the caller's (``<ES-title>`` alone, asked for ``en``) is an error too, as it is
in HC4 files: it is not read as if it were in the caller's language; so is a topic whose unprefixed fields are
declared in another language, by CLEF's ``<top lang="es">`` attribute (``xml:lang``; a code such as ``es-ES``
or a name such as ``spanish``; on the ``<topics>`` around the topics, for each of them; on a field, for that
field) or NTCIR's ``<SLANG>CH</SLANG>``. A declaration that cannot be read as a language is said once, and the
topics read as the asked language.
"""

from __future__ import annotations

import bisect
import codecs
import html
import re
from typing import Sequence

from clirkit.errors import ClirkitError, located, repeated_id
from clirkit.formats.ids import check_id
from clirkit.languages import declared_language
from clirkit.progress import say

TOPIC_FIELDS = ("title", "desc", "narr")
"""The fields of a topic a query's text can be made of, in the order they appear in topics."""
FIELD_ALIASES = {"title": "title", "desc": "desc", "description": "desc", "narr": "narr", "narrative": "narr"}
"""Names accepted for :data:`TOPIC_FIELDS` (the CLEF and ir_datasets spellings included)."""
DEFAULT_FIELDS = ("title",)

# How each dialect spells its fields, in messages.
_SPELLING = {
    "TREC": {"num": "num", "title": "title", "desc": "desc", "narr": "narr"},
    "CLEF": {"num": "identifier> or <num", "title": "title", "desc": "description", "narr": "narrative"},
    "NTCIR": {"num": "NUM", "title": "TITLE", "desc": "DESC", "narr": "NARR"},
}
_TOPIC_TAG = {"TREC": "top", "CLEF": "topic", "NTCIR": "TOPIC"}

# ISO 639-1 (clirkit's codes) -> the ISO 639-3/639-2 codes HC4, NeuCLIR and others use (and older or
# narrower codes of the same written language: iw, in, cmn, pes, swh, arb).
_LANG3 = {
    "ar": ("ara", "arb"),
    "bg": ("bul",),
    "bn": ("ben",),
    "ca": ("cat",),
    "cs": ("ces", "cze"),
    "da": ("dan",),
    "de": ("deu", "ger"),
    "el": ("ell", "gre"),
    "en": ("eng",),
    "es": ("spa",),
    "et": ("est",),
    "eu": ("eus", "baq"),
    "fa": ("fas", "per", "pes"),
    "fi": ("fin",),
    "fr": ("fra", "fre"),
    "he": ("heb", "iw"),
    "hi": ("hin",),
    "hu": ("hun",),
    "id": ("ind", "in"),
    "it": ("ita",),
    "ja": ("jpn",),
    "ko": ("kor",),
    "lt": ("lit",),
    "lv": ("lav",),
    "nl": ("nld", "dut"),
    "nb": ("nob", "no", "nor"),  # Bokmål, the written Norwegian of most texts
    "no": ("nor", "nb", "nob"),
    "pl": ("pol",),
    "pt": ("por",),
    "ro": ("ron", "rum"),
    "ru": ("rus",),
    "sk": ("slk", "slo"),
    "sl": ("slv",),
    "sv": ("swe",),
    "sw": ("swa", "swh"),
    "th": ("tha",),
    "tr": ("tur",),
    "uk": ("ukr",),
    "ur": ("urd",),
    "vi": ("vie",),
    "zh": ("zho", "chi", "cmn"),
}
_LANG_HINT = "choose one with --source-lang (in Python: read_queries(lang=), Resources(source_lang=))"


def lang_codes(lang: str | None) -> frozenset[str]:
    """The lower-case codes a file may use for ``lang`` (``"fa"`` -> fa, fas, per); empty for None."""
    if not lang:
        return frozenset()
    lang = lang.lower()
    for two, threes in _LANG3.items():
        if lang == two or lang in threes:
            return frozenset((two, *threes))
    return frozenset((lang,))


def split_field_names(value: str | Sequence[str] | None, what: str = "query fields") -> tuple[str, ...] | None:
    """``"title,desc"``, ``"title+desc"`` or ``["title", "desc"]`` as a tuple of names (None stays None);
    ClirkitError for an empty name or a name given twice."""
    if value is None:
        return None
    if isinstance(value, str):
        parts = [p.strip() for p in re.split(r"[,+]", value)]
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        raise ClirkitError(f"{what} {value!r}: expected field names such as 'title' or 'title,desc'")
    if not parts or not all(isinstance(p, str) and p for p in parts):
        raise ClirkitError(f"{what} {value!r}: expected field names separated by commas, such as 'title,desc'")
    if len(set(parts)) != len(parts):
        raise ClirkitError(f"{what} {value!r} names a field twice")
    return tuple(parts)


def topic_fields(value: str | Sequence[str] | None, where: str, label: str) -> tuple[str, ...]:
    """The canonical topic fields (:data:`TOPIC_FIELDS`) of ``value`` (None: title); ClirkitError
    ``where: unknown topic field ...`` naming the fields ``label`` topics have."""
    names = split_field_names(value) or DEFAULT_FIELDS
    out = []
    for n in names:
        canon = FIELD_ALIASES.get(n.lower())
        if canon is None:
            raise ClirkitError(
                f"{where}: unknown topic field {n!r} (the fields of {label} topics are title, desc "
                f"and narr; ask for several as title,desc)"
            )
        if canon in out:
            raise ClirkitError(f"{where}: topic field {n!r} asked for twice")
        out.append(canon)
    return tuple(out)


# --------------------------------------------------------------------------- detection and decoding


def sniff(head: str) -> str | None:
    """``"markup"`` if the text ``head`` (the start of a file) begins with a tag, ``"json"`` if with ``{``,
    else None. A first line with a tab is never markup (``<q1> TAB text`` is a TSV query)."""
    head = head.lstrip("\ufeff \t\r\n")
    first = head.split("\n", 1)[0]
    if head.startswith("<") and "\t" not in first:
        return "markup"
    if head.startswith("{"):
        return "json"
    return None


_XML_DECL = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._:-]+)[\"']")


def decode_markup(name: str, data: bytes, *, say=None) -> str:
    """The text of a markup topic file: the encoding its XML declaration names, else UTF-8, else Latin-1
    (said through ``say``, a function of one message)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    m = _XML_DECL.match(data[:1000])
    if m:
        enc = m.group(1).decode("ascii")
        try:
            codec = codecs.lookup(enc).name
        except LookupError:
            raise located(
                name,
                1,
                f"unknown encoding {enc!r} in the XML declaration; convert the file to UTF-8 "
                f"(iconv -f ENCODING -t UTF-8) and remove the declaration",
            ) from None
        if codec != "utf-8":
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                raise located(
                    name,
                    data.count(b"\n", 0, exc.start) + 1,
                    f"not valid {enc} (byte {data[exc.start]:#04x}) although the XML declaration says "
                    f"so; fix the declaration or convert the file to UTF-8",
                ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        text = _Latin1(data.decode("latin-1"))
        text.notice = (
            f"not valid UTF-8 (line {line}, byte {data[exc.start]:#04x}): read as Latin-1 (ISO-8859-1), "
            f"the encoding of old TREC and CLEF topic files"
        )
        text.say = say
        return text


class _Latin1(str):
    """Markup text read as Latin-1, with what to say about it once its topics are read (``say(notice)``), or to
    add to the error they raise: the user sees one line either way."""

    notice: str = ""
    say = None


# --------------------------------------------------------------------------- markup (TREC, CLEF, NTCIR)

_TOKEN = re.compile(
    r"<!--(?:.*?-->|(?P<open_comment>))"  # a comment (one never closed is an error, not the rest of the file)
    r"|<!\[CDATA\[(?:(?P<cdata>.*?)\]\]>|(?P<open_cdata>))"
    r"|<!DOCTYPE[^<>\[]*\[(?:[^\]\"']|\"[^\"]*\"|'[^']*')*\]\s*>"  # <!DOCTYPE t [...]> (its declarations skipped)
    r"|<[?!][^<>]*>"  # <?xml ...?>, <!DOCTYPE ...>, <!ENTITY ...>
    r"|<(?P<close>/?)\s*(?:(?P<lang>[A-Za-z]{2})-)?(?P<name>[A-Za-z][\w.:-]*)(?:\s[^<>]*|/)?>",  # <t/> as <t />
    re.S,
)
_CONTAINERS = ("top", "topic")
_NO_TOPICS = (
    "no topics found: expected <top> (TREC), <topic> (CLEF) or <TOPIC> (NTCIR) elements, or give queries "
    "as qid TAB text"
)
_FIELD_TAGS = {"num": "num", "identifier": "num", "slang": "slang", **FIELD_ALIASES}
_ATTRIBUTE = re.compile(r"""([^\s=/>"']+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'/>]+))""")
_NTCIR_CODES = {"ch": "zh", "cn": "zh", "kr": "ko", "jp": "ja"}  # NTCIR's <SLANG> codes that are not ISO 639
_NO_LANGUAGE = {"und", "mul", "zxx"}  # ISO 639-2's undetermined, multiple, no linguistic content: no language said
_LABELS = {
    "num": re.compile(r"^\s*number\s*:", re.I),
    "title": re.compile(r"^\s*topic\s*:", re.I),
    "desc": re.compile(r"^\s*description\s*:", re.I),
    "narr": re.compile(r"^\s*narrative\s*:", re.I),
}


class _Tag:
    __slots__ = ("start", "end", "closing", "lang", "name", "key", "empty", "text")

    def __init__(self, m: re.Match) -> None:
        self.start, self.end = m.start(), m.end()
        self.text = m.group("cdata")  # CDATA: text kept as it is
        raw = m.group("name")
        self.name = raw
        self.closing = m.group("close") == "/"
        self.lang = m.group("lang").upper() if m.group("lang") else None
        low = raw.lower() if raw else None
        self.key = _FIELD_TAGS.get(low) if low else None  # num, title, desc, narr or None
        self.empty = m.group(0).endswith("/>")

    @property
    def is_tag(self) -> bool:
        return self.name is not None

    @property
    def container(self) -> bool:
        return self.name is not None and self.lang is None and self.name.lower() in _CONTAINERS

    def shown(self) -> str:
        prefix = f"{self.lang}-" if self.lang else ""
        return f"<{'/' if self.closing else ''}{prefix}{self.name}>"


def markup_dialect(text: str) -> str:
    """``TREC``, ``CLEF`` or ``NTCIR``: the dialect of the first topic element of ``text`` (TREC if none)."""
    m = re.search(r"<(top|topic|TOPIC|Topic)[\s>]", text)
    if m is None or m.group(1) == "top":
        return "TREC"
    return "NTCIR" if m.group(1) == "TOPIC" else "CLEF"


def read_markup_topics(
    name: str, text: str, fields: Sequence[str], *, lang: str | None = None, label: str | None = None
) -> dict[str, str]:
    """``{qid: text}`` of the topics of the markup ``text`` (TREC, CLEF or NTCIR; see the module doc). Text that
    :func:`decode_markup` read as Latin-1 is said so once the topics are read, or in the error they raise."""
    notice = getattr(text, "notice", "")
    try:
        queries = _read_markup_topics(name, str(text), fields, lang=lang, label=label)
    except ClirkitError as exc:
        if notice:
            raise ClirkitError(f"{exc} (the file is {notice})") from None
        raise
    if notice and text.say is not None:
        text.say(f"{name}: {notice}")
    return queries


def _read_markup_topics(
    name: str, text: str, fields: Sequence[str], *, lang: str | None, label: str | None
) -> dict[str, str]:
    return _MarkupReader(name, text.replace("\r\n", "\n").replace("\r", "\n"), fields, lang, label).read()


class _MarkupReader:
    """One pass over the tags and text of a markup topic file (:func:`read_markup_topics`): the text between
    tokens goes to the field being read; a topic's fields are joined into its query when it closes."""

    def __init__(self, name: str, text: str, fields: Sequence[str], lang: str | None, label: str | None) -> None:
        self.name, self.text, self.fields, self.lang = name, text, fields, lang
        self.label = label or markup_dialect(text)
        self.spell = _SPELLING[self.label]
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.tokens = []
        for m in _TOKEN.finditer(text):
            if m.group("open_comment") is not None or m.group("open_cdata") is not None:
                raise self._never_closed(m)
            self.tokens.append(_Tag(m))
        self.queries: dict[str, str] = {}
        self.where: dict[str, int] = {}
        self.topic: _Tag | None = None
        self.top_line = 0
        self.parts: dict[tuple[str, str | None], list[str]] = {}  # (field, language prefix) -> text pieces
        self.nums: list[tuple[int, list[str], _Tag]] = []
        # languages declared, each as (how, value, line): ('lang="es"', "es", 2)
        self.outer: list[tuple[str, tuple[str, str, int] | None]] = []  # by the open tags around topics (<topics>)
        self.unread: set[str] = set()  # the language declarations that could not be read, said once each
        self.declared: tuple[str, str, int] | None = None  # by the topic's lang="..." attribute (CLEF)
        self.field_declared: dict[tuple[str, str | None], tuple[str, str, int] | None] = {}  # by a field's
        self.slang: list[str] | None = None  # the pieces of its <SLANG> (NTCIR)
        self.slang_line = 0
        self.current: list[str] | None = None  # the pieces of the field receiving text
        self.current_tag: _Tag | None = None
        self.closed = False  # the current field ends at its closing tag (nested tags are part of it)

    def line_of(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def _never_closed(self, m: re.Match) -> ClirkitError:
        """The error for a comment (``<!--``) or CDATA section (``<![CDATA[``) that ``m`` opens and nothing closes:
        read to the end of the file, it would hide every later topic."""
        opened, closer = ("<!--", "-->") if m.group("open_comment") is not None else ("<![CDATA[", "]]>")
        what = "comment" if opened == "<!--" else "CDATA section"
        return located(
            self.name,
            self.line_of(m.start()),
            f"{what} {opened} is never closed by {closer} (it would hide the rest of the file); close it with {closer}",
        )

    def read(self) -> dict[str, str]:
        name, text, tokens = self.name, self.text, self.tokens
        if not any(t.container for t in tokens):
            raise located(name, None, _NO_TOPICS)
        pos = 0
        for i, tok in enumerate([*tokens, None]):
            chunk = text[pos : tok.start] if tok is not None else text[pos:]
            if chunk.strip():
                self._text(chunk, pos)
            if tok is None:
                break
            pos = tok.end
            if not tok.is_tag:
                if tok.text is not None and self.current is not None:
                    self.current.append(tok.text)
            elif tok.container:
                self._container(tok)
            elif self.topic is None:
                if tok.key is not None and not tok.closing:
                    tag = _TOPIC_TAG[self.label]
                    raise located(
                        name,
                        self.line_of(tok.start),
                        f"{tok.shown()} outside <{tag}> ... </{tag}>; put "
                        f"each topic's fields inside <{tag}> ... </{tag}>",
                    )
                self._outer_tag(tok)
            else:
                self._field_tag(i, tok)
        if self.topic is not None:
            raise located(
                name,
                self.top_line,
                f"{self.topic.shown()} is never closed by </{self.topic.name}>; add "
                f"</{self.topic.name}> at the end of the topic",
            )
        if not self.queries:
            raise located(name, None, _NO_TOPICS)
        return self.queries

    def _text(self, chunk: str, pos: int) -> None:
        """Text (not blank) between two tokens, starting at ``pos``: part of the current field, if any."""
        if self.topic is None:
            at = pos + len(chunk) - len(chunk.lstrip())
            shown = html.unescape(chunk.strip())[:40]
            tag = _TOPIC_TAG[self.label]
            raise located(
                self.name,
                self.line_of(at),
                f"text outside <{tag}> ... </{tag}>: {shown!r}; remove it, or put it inside a topic's field",
            )
        if self.current is not None:
            self.current.append(html.unescape(chunk))

    def _container(self, tok: _Tag) -> None:
        """A topic opened or closed."""
        if not tok.closing:
            if self.topic is not None:
                raise located(
                    self.name,
                    self.line_of(tok.start),
                    f"{tok.shown()} inside the topic opened at line "
                    f"{self.top_line} (missing </{self.topic.name}>); "
                    f"close that topic with </{self.topic.name}>",
                )
            self.topic, self.top_line, self.parts, self.nums = tok, self.line_of(tok.start), {}, []
            self.current, self.current_tag, self.slang, self.field_declared = None, None, None, {}
            self.declared = self._declaration(tok)
            if tok.empty:
                raise located(
                    self.name,
                    self.top_line,
                    f"empty {tok.shown()} element: a topic holds its fields; "
                    f"write them between <{tok.name}> and </{tok.name}>",
                )
            return
        if self.topic is None:
            raise located(
                self.name,
                self.line_of(tok.start),
                f"{tok.shown()} without <{tok.name}>; remove it, or open the topic with <{tok.name}>",
            )
        self._close_topic()
        self.topic, self.current, self.current_tag = None, None, None

    def _field_tag(self, i: int, tok: _Tag) -> None:
        """A tag inside a topic (``tokens[i]``): a field opened or closed, or an unknown tag."""
        if tok.closing:
            current_tag = self.current_tag
            if self.current is not None and (
                not self.closed or (tok.key == current_tag.key and tok.lang == current_tag.lang)
            ):
                self.current, self.current_tag = None, None
            return
        if tok.key is None:  # an unknown tag: part of a closed field (NTCIR's <BACK>), else the end of one
            if self.current is not None and not self.closed:
                self.current, self.current_tag = None, None
            return
        pieces: list[str] = []
        if tok.key == "num":
            if self.nums:
                raise self._second(tok)
            self.nums.append((self.line_of(tok.start), pieces, tok))
        elif tok.key == "slang":
            if self.slang is not None:
                raise self._second(tok)
            self.slang, self.slang_line = pieces, self.line_of(tok.start)
        else:
            if (tok.key, tok.lang) in self.parts:
                raise self._second(tok)
            self.parts[(tok.key, tok.lang)] = pieces
            self.field_declared[(tok.key, tok.lang)] = self._declaration(tok)
        if tok.empty:
            self.current, self.current_tag = None, None
        else:
            self.current, self.current_tag, self.closed = pieces, tok, self._closes_later(i)

    def _closes_later(self, i: int) -> bool:
        """Whether the field opened by tokens[i] has its closing tag before the next field or topic tag."""
        t = self.tokens[i]
        for j in range(i + 1, len(self.tokens)):
            u = self.tokens[j]
            if not u.is_tag:
                continue
            if u.container or (u.key is not None and not u.closing):
                return False
            if u.closing and u.key == t.key and u.lang == t.lang:
                return True
        return False

    def _second(self, tok: _Tag) -> ClirkitError:
        """The error for a field tag met twice in one topic (its second ``tok``)."""
        return located(
            self.name,
            self.line_of(tok.start),
            f"second {tok.shown()} in the topic opened at line "
            f"{self.top_line}; a topic has one: remove the other, or "
            f"close the topic before it with </{self.topic.name}>",
        )

    def _outer_tag(self, tok: _Tag) -> None:
        """A tag outside the topics (a closing tag, or a container of topics such as <topics>, <TOPICS>, whose
        language declaration holds for the topics inside it; another tag's, <html lang=...>, does not)."""
        name = tok.name.lower()
        if not tok.closing:
            declared = self._declaration(tok) if "topic" in name else None  # (not <html lang=...>)
            if declared is not None:  # said with its tag: not on the topic
                declared = (f"<{tok.name} {declared[0]}> at line {declared[2]}", *declared[1:])
            if not tok.empty:
                self.outer.append((name, declared))
        elif any(n == name for n, _ in self.outer):
            while self.outer.pop()[0] != name:
                pass

    def _declaration(self, tok: _Tag) -> tuple[str, str, int] | None:
        """The language ``tok`` declares by its ``lang`` (or ``xml:lang``) attribute, as ``(how, value, line)``;
        None without one, or with an empty one (XML's "no language said")."""
        attributes = _ATTRIBUTE.finditer(self.text, tok.start, tok.end)  # lang, not src-lang or a value's "lang="
        langs = [a for a in attributes if a.group(1).lower() in ("lang", "xml:lang")]
        said = {next(v for v in a.group(2, 3, 4) if v is not None).strip().lower() for a in langs}
        if len(said - {""}) > 1:  # (two languages: which one is meant cannot be told)
            named = ", ".join(a.group(0) for a in langs)
            raise located(
                self.name, self.line_of(tok.start), f"<{tok.name}> declares two languages ({named}): keep one"
            )
        m = langs[0] if langs else None
        value = next((v for v in m.group(2, 3, 4) if v is not None), "").strip() if m else ""
        if value.lower() in _NO_LANGUAGE:
            return None
        return (f'{m.group(1)}="{value}"', value, self.line_of(tok.start)) if value else None

    def _check_declared(self, qid: str, chosen: str | None) -> None:
        """ClirkitError when a field read (those of the ``chosen`` language prefix) is declared in another language
        than the caller's: by its own ``lang`` attribute, else, unprefixed, by the topic's (its ``lang`` attribute,
        its ``<SLANG>``, the ``lang`` of a tag around it); read as the caller's language, every query word would be
        missed. A declaration that cannot be read as a language is said (:meth:`_check_language`)."""
        if not self.lang:
            return
        topic = None
        if chosen is None:
            slang = " ".join(" ".join(self.slang).split()) if self.slang is not None else ""
            outer = next((d for _, d in reversed(self.outer) if d is not None), None)
            topic = self.declared or (slang and (f"<SLANG>{slang}</SLANG>", slang, self.slang_line)) or outer
        for f in self.fields:
            own = self.field_declared.get((f, chosen))
            if own is not None:
                tag = f"{chosen}-{self.spell[f]}" if chosen else self.spell[f]
                self._check_language(f"the <{tag}> of topic {qid}", own, own[2])
            elif (f, chosen) in self.parts:
                self._check_language(f"topic {qid}", topic, self.top_line)

    def _check_language(self, what: str, declared: tuple[str, str, int] | None, line: int) -> None:
        """ClirkitError ``name:line: WHAT is in es (lang="es"), not in en; ...`` when ``declared`` is another
        language than the caller's; one that :func:`~clirkit.languages.declared_language` cannot read is said on
        stderr once a file (``name:line: could not read the language declaration ...``), the field read as asked."""
        if declared is None:
            return
        how, value, at = declared
        code = _NTCIR_CODES.get(value.lower()) or declared_language(value)
        if code is None:  # (a language's name clirkit does not know: said once, read as the caller's)
            if how not in self.unread:
                self.unread.add(how)
                say(
                    f"{self.name}:{at}: could not read the language declaration {how}: read as {self.lang} (write a "
                    "language code such as es, ISO 639-1)"
                )
            return
        if code not in lang_codes(self.lang):
            raise located(self.name, line, f"{what} is in {code} ({how}), not in {self.lang}; {_LANG_HINT}")

    def _close_topic(self) -> None:
        """The query of the topic read: its number and the fields asked for, in the chosen language."""
        name, top_line, parts = self.name, self.top_line, self.parts
        if not self.nums:
            raise located(name, top_line, f"topic has no <{self.spell['num']}>; give each topic its number")
        num_line, pieces, num_tag = self.nums[0]
        qid = " ".join(_LABELS["num"].sub("", " ".join(pieces), count=1).split())
        if not qid:
            raise located(name, num_line, f"empty topic number in {num_tag.shown()}; give each topic its number")
        check_id(name, num_line, qid, "topic number")
        if qid in self.where:
            raise repeated_id(name, num_line, "query id", qid, self.where[qid], "topic")
        langs = list(dict.fromkeys(k[1] for k in parts))
        chosen = langs[0] if langs else None
        if len(langs) == 1 and chosen is not None and self.lang and chosen.lower() not in lang_codes(self.lang):
            raise located(
                name, top_line, f"topic {qid} has no version in {self.lang} (languages: {chosen}); {_LANG_HINT}"
            )
        if len(langs) > 1:
            want = [p for p in langs if p is not None and p.lower() in lang_codes(self.lang)]
            if not want:
                present = ", ".join(p or "no prefix" for p in langs)
                asked = f"; the source language {self.lang} is not among them" if self.lang else ""
                raise located(
                    name, top_line, f"topic {qid} is given in several languages ({present}){asked}: {_LANG_HINT}"
                )
            chosen = want[0]
        self._check_declared(qid, chosen)
        texts = []
        for f in self.fields:
            if (f, chosen) not in parts:
                tag = f"{chosen}-{self.spell[f]}" if chosen else self.spell[f]
                hint = "" if f == "title" else "; ask for fields every topic has with --query-fields, e.g. title"
                raise located(name, top_line, f"topic {qid} has no <{tag}>{hint}")
            texts.append(" ".join(_LABELS[f].sub("", " ".join(parts[(f, chosen)]), count=1).split()))
        self.where[qid] = num_line
        self.queries[qid] = " ".join(t for t in texts if t)
