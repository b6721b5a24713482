"""Reading Debian's apt list files (the archive's index files as ``apt-get update`` stores them), shared by the
Debian dataset builders (:mod:`clirkit.datasets.debian_desc`, :mod:`clirkit.datasets.debian_deps`).

- :func:`find_list`: the one file of the list folder for a suite's index (``main_i18n_Translation-de``,
  ``main_binary-amd64_Packages``, ``InRelease``), compressed or not;
- :func:`read_list`: its decompressed bytes (``apt-helper cat-file`` for compressed ones);
- :func:`inrelease_sha256`: the release date and the SHA-256 of every index file, from ``InRelease``;
- :func:`iter_stanzas`: the deb822 paragraphs of an index file as ``{field: value}``;
- :func:`read_sources`: ``{binary package: source package}`` from a ``Packages`` file.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Iterator

from clirkit.errors import ClirkitError

LISTS_DIR = "/var/lib/apt/lists"
SUITE = "bookworm"
APT_HELPER = "/usr/lib/apt/apt-helper"


def find_list(lists_dir: str | Path, suffix: str) -> Path:
    """The one file of ``lists_dir`` for ``SUITE``'s ``suffix`` (e.g. ``main_i18n_Translation-de``),
    compressed or not. Raises ClirkitError when there is none or more than one."""
    folder = Path(lists_dir)
    if not folder.is_dir():
        raise ClirkitError(f"{folder}: no such folder (give --lists, the apt list folder)")
    found = sorted(
        p
        for p in folder.glob(f"*_dists_{SUITE}_{suffix}*")
        if re.fullmatch(rf".*_dists_{SUITE}_{re.escape(suffix)}(\.(lz4|gz|xz|bz2|zst))?", p.name)
    )
    if len(found) != 1:
        what = "no file" if not found else f"{len(found)} files ({', '.join(p.name for p in found)})"
        raise ClirkitError(
            f"{folder}: {what} matching *_dists_{SUITE}_{suffix}; enable the language with "
            f"Acquire::Languages and run apt-get update"
        )
    return found[0]


def read_list(path: Path) -> bytes:
    """The decompressed bytes of an apt list file (``apt-helper cat-file`` for compressed ones)."""
    if not path.name.endswith((".lz4", ".gz", ".xz", ".bz2", ".zst")):
        return path.read_bytes()
    if not Path(APT_HELPER).is_file():
        raise ClirkitError(f"{path}: cannot decompress without {APT_HELPER} (install apt)")
    done = subprocess.run([APT_HELPER, "cat-file", str(path)], capture_output=True, check=False)
    if done.returncode != 0:
        raise ClirkitError(f"{path}: apt-helper cat-file failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def inrelease_sha256(lists_dir: str | Path) -> tuple[str, dict[str, str]]:
    """``(Date, {path in the archive: SHA-256})`` from ``SUITE``'s ``InRelease`` file."""
    text = read_list(find_list(lists_dir, "InRelease")).decode("utf-8")
    date = re.search(r"^Date: (.*)$", text, re.M)
    block = re.search(r"^SHA256:\n((?: .*\n)+)", text, re.M)
    if date is None or block is None:
        raise ClirkitError(f"{lists_dir}: the {SUITE} InRelease file has no Date or SHA256 field")
    sums = {}
    for line in block.group(1).splitlines():
        digest, _size, name = line.split()
        sums[name] = digest
    return date.group(1), sums


def iter_stanzas(text: str) -> Iterator[dict[str, str]]:
    """deb822 paragraphs as ``{field: value}``; a multi-line value keeps its continuation lines
    (with their leading space) after a ``\\n``."""
    stanza: dict[str, str] = {}
    key = None
    for line in text.split("\n"):
        if not line.strip():
            if stanza:
                yield stanza
            stanza, key = {}, None
        elif line[0] in " \t":
            if key is not None:
                stanza[key] += "\n" + line
        else:
            key, _, value = line.partition(":")
            stanza[key] = value.strip()
    if stanza:
        yield stanza


def read_sources(text: str) -> dict[str, str]:
    """``{binary package: source package}`` from a Packages file (``Source`` without its version;
    the package's own name when absent)."""
    out: dict[str, str] = {}
    package = None
    for line in text.split("\n"):
        if line.startswith("Package:"):
            package = line[8:].strip()
            out.setdefault(package, package)
        elif line.startswith("Source:") and package is not None:
            out[package] = line[7:].split("(")[0].strip()
        elif not line.strip():
            package = None
    return out
