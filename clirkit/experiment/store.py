"""The output folder of an experiment: each artifact beside a ``.json`` record of what made it."""
from __future__ import annotations

import json
from pathlib import Path

from clirkit.errors import ClirkitError


class Store:
    """Artifacts of one experiment folder, each beside a ``.json`` record of what made it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        if folder.exists() and not folder.is_dir():
            raise ClirkitError(f"{folder}: exists and is not a folder; give a folder for the output")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file on the way, no permission, a read-only place
            raise ClirkitError(f"{folder}: cannot make the output folder ({exc.strerror or exc})") from None

    def fresh(self, path: Path, record: dict) -> bool:
        """True if ``path`` exists and was made from ``record``."""
        meta = path.with_name(path.name + ".json")
        if not (path.exists() and meta.exists()):
            return False
        try:
            return json.loads(meta.read_text(encoding="utf-8")) == json.loads(json.dumps(record))
        except (json.JSONDecodeError, UnicodeDecodeError):
            return False

    def remember(self, path: Path, record: dict) -> None:
        from clirkit.fileio import atomic_writer

        with atomic_writer(path.with_name(path.name + ".json")) as out:
            out.write(json.dumps(record, indent=1, sort_keys=True) + "\n")
