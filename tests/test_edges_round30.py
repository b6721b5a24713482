"""Edge round 30 (a report-only tester on 2026-12-02): each case failed before its fix."""

from __future__ import annotations

import pytest

DOCS = (
    "Gen.1.1\tEn el principio crió Dios los cielos y la tierra.\n"
    "Gen.1.3\tY dijo Dios: Sea la luz: y fué la luz.\n"
    "Gen.1.6\tY dijo Dios: Haya expansión en medio de las aguas, y separe las aguas de las aguas.\n"
    "John.1.5\tY la luz en las tinieblas resplandece; mas las tinieblas no la comprendieron.\n"
)


@pytest.mark.parametrize("verb", ["boost-train", "scs-train"])
def test_training_refuses_judgments_of_documents_not_given_at_their_line(tmp_path, capsys, verb):
    from clirkit.cli import main

    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("LIGHT.1\tLight: created\nWATER.1\tWater: divided\n", encoding="utf-8")
    qrels = tmp_path / "q.qrels"  # Gen.1.33: a typo, no such verse
    qrels.write_text("LIGHT.1 0 Gen.1.3 2\nLIGHT.1 0 Gen.1.33 2\nWATER.1 0 Gen.1.6 2\nOTHER 0 X.1 1\n", "utf-8")
    argv = [verb, "--queries", str(tmp_path / "q.tsv"), "--qrels", str(qrels), "--documents"]
    argv += [str(tmp_path / "docs.tsv"), "--source-lang", "en", "--target-lang", "es", "-o", str(tmp_path / "m.npz")]
    assert main([*argv, "-q"]) == 2
    err = capsys.readouterr().err
    assert err == (  # the judgment of a query not given (OTHER) is not counted: the qrels may judge other queries
        f"clirkit: error: {qrels}:2: 1 of the 3 judgments names a document not in {tmp_path / 'docs.tsv'} (the "
        "first: query LIGHT.1, document Gen.1.33): are these the qrels of these documents?\n"
    )
    assert not (tmp_path / "m.npz").exists()
