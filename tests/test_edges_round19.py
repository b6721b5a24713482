"""Edge cases of the nineteenth round of independent testing, and leftovers of the seventeenth and eighteenth:
each a one-line error or notice that names the problem, or outputs that are the same bytes when made alike."""

from __future__ import annotations

import os

from clirkit.cli import main
from test_edges_round17 import _files


def _folder_bytes(folder) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {
        os.path.relpath(os.path.join(root, name), folder): open(os.path.join(root, name), "rb").read()
        for root, _, names in os.walk(folder)
        for name in names
    }


def test_two_fresh_runs_of_a_collection_of_files_write_the_same_bytes(tmp_path, capsys):
    f = _files(tmp_path)
    (tmp_path / "e.toml").write_text(
        'measures = ["AP"]\nfigures = false\n[collection]\n'
        f'documents = "{f["docs"]}"\nqueries = "{f["queries"]}"\nqrels = "{f["qrels"]}"\n'
        'source_lang = "en"\ntarget_lang = "es"\nsplit = {dev = 0.5, test = 0.5}\n'
        f'[table]\nfile = "{f["dict"]}"\nformat = "muse"\n[systems.DT]\nkind = "dt"\n',
        encoding="utf-8",
    )
    for out in ("a", "b"):
        assert main(["run", str(tmp_path / "e.toml"), "-o", str(tmp_path / out), "-q"]) == 0
    first, second = _folder_bytes(tmp_path / "a"), _folder_bytes(tmp_path / "b")
    assert sorted(first) == sorted(second)
    assert [name for name in first if first[name] != second[name]] == []
    capsys.readouterr()
