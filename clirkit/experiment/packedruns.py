"""The runs an experiment keeps while it runs, packed: a run of millions of rows is held whole only while it is
used."""

from __future__ import annotations

from typing import Any, Iterator, Mapping


class PackedRuns(Mapping):
    """``{system name: Run}`` in the order the runs were made, each held as a :class:`~clirkit.packedrun.PackedRun`
    (12 bytes a row, not its id strings) and unpacked when it is read: a run of millions of rows is held whole
    only while it is used."""

    def __init__(self) -> None:
        self._packed: dict[str, Any] = {}

    def __setitem__(self, name: str, run) -> None:
        from clirkit.packedrun import PackedRun

        self._packed[name] = PackedRun.of(run)

    def __getitem__(self, name: str):
        return self._packed[name].unpack()

    def __contains__(self, name: object) -> bool:
        return name in self._packed  # (Mapping's would read the run: unpack it)

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def packed(self, name: str):
        """The run of ``name`` as it is kept (a :class:`~clirkit.packedrun.PackedRun`)."""
        return self._packed[name]

    def ordered(self, names) -> "PackedRuns":
        """These runs (the same packed runs) in the order of ``names``, each of which must be here."""
        view = PackedRuns()
        view._packed = {n: self._packed[n] for n in names}
        return view
