"""Reading compiled gettext catalogs out of Debian packages, for :mod:`clirkit.datasets.gettext_catalogs`,
without ``dpkg-deb``: a ``.deb`` is an ``ar`` archive (:func:`read_ar`) whose ``data.tar`` member holds the
catalogs ``usr/share/locale/LL/LC_MESSAGES/DOMAIN.mo`` (:func:`deb_catalogs`); :func:`read_mo` gives a
catalog's entries and :func:`singular` an entry without its context and plural forms.
"""

from __future__ import annotations

import io
import re
import struct
import tarfile
from pathlib import Path

from clirkit.errors import ClirkitError


def read_ar(data: bytes, path: object = "<deb>") -> dict[str, bytes]:
    """The members of an ``ar`` archive (a ``.deb``): ``{name: bytes}``. Raises ClirkitError if not one."""
    if not data.startswith(b"!<arch>\n"):
        raise ClirkitError(f"{path}: not a Debian package (no ar header)")
    members: dict[str, bytes] = {}
    pos = 8
    while pos + 60 <= len(data):
        header = data[pos : pos + 60]
        name = header[:16].decode("ascii").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        members[name] = data[pos + 60 : pos + 60 + size]
        pos += 60 + size + (size & 1)
    return members


_MO_PATH = re.compile(r"(?:\./)?usr/share/locale/([^/]+)/LC_MESSAGES/([^/]+)\.mo")


def deb_catalogs(path: Path, locales: set[str]) -> dict[tuple[str, str], bytes]:
    """The compiled catalogs in one ``.deb``: ``{(locale, domain): .mo bytes}`` for ``locales``."""
    members = read_ar(path.read_bytes(), path)
    name = next((m for m in members if m.startswith("data.tar")), None)
    if name is None:
        raise ClirkitError(f"{path}: no data.tar member")
    out: dict[tuple[str, str], bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(members[name]), mode="r:*") as tar:
        for member in tar:
            m = _MO_PATH.fullmatch(member.name)
            if m and m.group(1) in locales and member.isfile():
                out[(m.group(1), m.group(2))] = tar.extractfile(member).read()
    return out


def read_mo(data: bytes, path: object = "<mo>") -> list[tuple[str, str]]:
    """The entries of a compiled catalog as ``(msgid, msgstr)`` in file order, header dropped.

    ``msgid`` keeps a context as ``CONTEXT\\x04MSGID`` and a plural as ``SINGULAR\\x00PLURAL``;
    ``msgstr`` of a plural holds its forms separated by ``\\x00``. Raises ClirkitError if not a catalog.
    """
    if len(data) < 28:
        raise ClirkitError(f"{path}: not a gettext catalog (too short)")
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">" if magic == 0xDE120495 else None
    if order is None:
        raise ClirkitError(f"{path}: not a gettext catalog (bad magic)")
    _, n, ids_at, strs_at = struct.unpack(order + "4I", data[4:20])
    raw: list[tuple[bytes, bytes]] = []
    for i in range(n):
        ilen, ioff = struct.unpack(order + "2I", data[ids_at + 8 * i : ids_at + 8 * i + 8])
        slen, soff = struct.unpack(order + "2I", data[strs_at + 8 * i : strs_at + 8 * i + 8])
        raw.append((data[ioff : ioff + ilen], data[soff : soff + slen]))
    charset = "utf-8"
    for mid, mstr in raw:
        if mid == b"":
            m = re.search(rb"charset=([\w-]+)", mstr)
            if m and m.group(1).lower() != b"charset":  # "charset=CHARSET": an unfilled template
                charset = m.group(1).decode("ascii")
    out = []
    for mid, mstr in raw:
        if mid == b"":
            continue
        try:
            out.append((mid.decode(charset), mstr.decode(charset)))
        except (UnicodeDecodeError, LookupError) as exc:
            raise ClirkitError(f"{path}: cannot decode an entry as {charset} ({exc})") from None
    return out


def singular(msgid: str, msgstr: str) -> tuple[str, str]:
    """``(msgid, msgstr)`` of an entry without its context, a plural reduced to msgid and msgstr[0]."""
    return msgid.split("\x04", 1)[-1].split("\x00", 1)[0], msgstr.split("\x00", 1)[0]
