"""Manual pages as text, for :mod:`clirkit.datasets.manpages`: rendering a roff page with groff, cutting the
output into sections and paragraphs, and what the collections take of a page.

- :func:`render`: a page's plain text (:data:`GROFF`, whose options
  :mod:`clirkit.datasets.manpages` explains); :func:`parse_sections`: that text as :class:`Rendered`
  sections (heading, paragraphs), page header and footer dropped;
- :func:`strip_names`, :func:`name_description`: the NAME description without the page names (a query);
- :func:`document_text`: the document of an English page (NAME and :data:`BOILERPLATE` sections left
  out, cut after :data:`MAX_WORDS` words);
- :func:`aligned_pairs`: the paragraph pairs of a translated page and its English original whose
  sections align (parallel corpus), at most :data:`MAX_PAIR_WORDS` words a side.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field

MAX_WORDS = 1500
MAX_PAIR_WORDS = 200
GROFF = ["groff", "-K", "utf-8", "-t", "-mandoc", "-Tutf8", "-rLL=2000n", "-rHY=0", "-P-cbou"]
# English section headings left out of documents and of the parallel corpus
BOILERPLATE = frozenset(
    {
        "SEE ALSO",
        "AUTHOR",
        "AUTHORS",
        "COPYRIGHT",
        "REPORTING BUGS",
        "COLOPHON",
        "AVAILABILITY",
        "LICENSE",
        "LICENCE",
        "COPYRIGHT AND LICENSE",
        "ACKNOWLEDGMENTS",
        "ACKNOWLEDGEMENTS",
        "THANKS",
        "MAINTAINER",
        "MAINTAINERS",
        "AUTHOR AND COPYRIGHT",
        "AUTHORS AND COPYRIGHT",
        "COPYING",
    }
)
# one NAME entry: page names (comma-separated, no spaces), a dash, the description
_NAME_ENTRY = re.compile(r"^\s*[^\s,]+(?:\s*,\s*[^\s,]+)*,?\s+[-\u2010-\u2015\u2212]{1,2}\s+(.*\S)\s*$")
_FIRST_DASH = re.compile(r"\s[-\u2010-\u2015\u2212]{1,2}\s")


@dataclass
class Rendered:
    """A page as text: ``sections`` = [(heading, paragraphs)], each paragraph a list of lines."""

    sections: list[tuple[str, list[list[str]]]] = field(default_factory=list)


def render(roff: bytes) -> str:
    """Plain text of a roff page (:data:`GROFF`, explained in :mod:`clirkit.datasets.manpages`)."""
    try:
        text = roff.decode("utf-8")
    except UnicodeDecodeError:
        text = roff.decode("latin-1")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    out = subprocess.run(GROFF, input=text.encode("utf-8"), capture_output=True, env=env, timeout=120)
    return out.stdout.decode("utf-8", errors="replace")


def parse_sections(text: str) -> Rendered:
    """Rendered page text -> sections: a line at column 0 is a heading, blank lines separate
    paragraphs, lines are stripped; the page header (a column-0 line followed by another one) and
    footer (a column-0 line ending the text) are dropped."""
    lines = [ln.rstrip() for ln in text.replace("\t", " ").splitlines()]
    top = [i for i, ln in enumerate(lines) if ln and not ln[0].isspace()]
    if len(top) >= 2 and not any(lines[top[0] + 1 : top[1]]):
        lines[top[0]] = ""  # the header: a column-0 line right before another (translated mdoc pages have none)
    if top and top[-1] > 0 and not any(lines[top[-1] + 1 :]):
        lines[top[-1]] = ""  # the footer: a column-0 line ending the text
    sections: list[tuple[str, list[list[str]]]] = []
    fresh = True
    for ln in lines:
        if not ln:
            fresh = True
        elif not ln[0].isspace():
            sections.append((" ".join(ln.split()), []))
            fresh = True
        elif sections:
            paras = sections[-1][1]
            if fresh or not paras:
                paras.append([])
            paras[-1].append(" ".join(ln.split()))
            fresh = False
    return Rendered(sections)


def strip_names(name_section: str) -> str:
    """The description part of a NAME section, page names removed.

    Each line ``names - description`` (names comma-separated; the dash may be
    ``-``, ``--``, ``\u2010``-``\u2015`` or ``\u2212``) gives its description; other lines continue the
    previous description; several entries are joined with ``"; "``. A description that itself
    starts with ``names - `` (a translator's slip) loses that too. Without any such line,
    the text after the first spaced dash, else "".

    >>> strip_names("bzip2, bunzip2 - a block-sorting file compressor\\nbzcat - decompresses files to stdout")
    'a block-sorting file compressor; decompresses files to stdout'
    """
    entries: list[str] = []
    for line in name_section.splitlines():
        m = _NAME_ENTRY.match(line)
        if m:
            desc = m.group(1)
            while (again := _NAME_ENTRY.match(desc)) is not None:  # "grep, egrep - rgrep - muestran ..."
                desc = again.group(1)
            entries.append(desc)
        elif entries and line.strip():
            entries[-1] += " " + line.strip()
    if not entries:
        m = _FIRST_DASH.search(name_section)
        entries = [name_section[m.end() :]] if m else []
    return "; ".join(" ".join(e.split()) for e in entries if e.split())


def name_description(page: Rendered) -> str:
    """The NAME description of a page (its first section), "" if none."""
    if not page.sections:
        return ""
    return strip_names("\n".join(ln for para in page.sections[0][1] for ln in para))


def _paragraph(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def document_text(page: Rendered) -> str:
    """The document of an English page: every section but NAME (the first) and :data:`BOILERPLATE`,
    headings left out, whitespace collapsed, cut after :data:`MAX_WORDS` words."""
    words: list[str] = []
    for heading, paras in page.sections[1:]:
        if heading.upper() in BOILERPLATE:
            continue
        for para in paras:
            words.extend(_paragraph(para).split())
            if len(words) >= MAX_WORDS:
                return " ".join(words[:MAX_WORDS])
    return " ".join(words)


def same_text(a: str, b: str) -> bool:
    """Equal up to case and whitespace."""
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def aligned_pairs(translated: Rendered, english: Rendered) -> list[tuple[str, str, str]] | None:
    """(id suffix ``sIpJ``, translated paragraph, English paragraph) for the sections that align
    (see :mod:`clirkit.datasets.manpages`); None when the pages' section counts differ."""
    tr = translated.sections
    en = english.sections
    if len(tr) == len(en) + 1:
        tr = tr[:-1]  # the translators' section manpages-l10n appends
    if len(tr) != len(en):
        return None
    out = []
    for i, ((_, t_paras), (heading, e_paras)) in enumerate(zip(tr, en)):
        if i == 0 or heading.upper() in BOILERPLATE or len(t_paras) != len(e_paras):
            continue
        for j, (tp, ep) in enumerate(zip(t_paras, e_paras)):
            s, t = _paragraph(tp), _paragraph(ep)
            if same_text(s, t) or len(s.split()) > MAX_PAIR_WORDS or len(t.split()) > MAX_PAIR_WORDS:
                continue
            out.append((f"s{i + 1}p{j + 1}", s, t))
    return out
