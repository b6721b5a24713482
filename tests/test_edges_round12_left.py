"""Issue 40, edge round 12, left by the testers (L1..L8): a memory-mapped translated index's counts are checked
before the language model's background sums them (L1)."""

from __future__ import annotations

import numpy as np

from clirkit.cli import main

DOCS = "d1\tthe house is red\nd2\tthe dog eats bread\nd3\tthe cat sleeps\n"


def one_line_error(capsys, prefix: str) -> str:
    captured = capsys.readouterr()
    assert captured.err.startswith(f"clirkit: error: {prefix}") and captured.err.count("\n") == 1, captured.err
    return captured.err


# ------------------------------------------------------------------ L1. a memory-mapped translated index, lm


def test_a_memory_mapped_translated_index_with_a_negative_count_is_named_by_the_lm_scoring(tmp_path, capsys, tamper):
    (tmp_path / "docs.tsv").write_text(DOCS, encoding="utf-8")
    (tmp_path / "q.tsv").write_text("q1\tcasa\n", encoding="utf-8")
    (tmp_path / "p.en").write_text("the house\nthe dog\n", encoding="utf-8")
    (tmp_path / "p.es").write_text("la casa\nel perro\n", encoding="utf-8")
    index, translated = str(tmp_path / "idx.npz"), str(tmp_path / "t-idx.npz")
    assert main(["index", str(tmp_path / "docs.tsv"), "-o", index, "--lang", "en", "-q"]) == 0
    table = ["--source", str(tmp_path / "p.en"), "--target", str(tmp_path / "p.es"), "--source-lang", "en"]
    assert main(["ttable", "train", *table, "--target-lang", "es", "-o", str(tmp_path / "t.npz"), "-q"]) == 0
    assert main(["psq", "--index", index, "--table", str(tmp_path / "t.npz"), "--save-index", translated, "-q"]) == 0
    with np.load(translated) as npz:
        negative = npz["tf_data"].copy()
    negative[1] = -5.0
    bad = tamper(translated, tmp_path / "bad.npz", tf_data=negative)
    search = ["psq", "--index", str(bad), "--queries", str(tmp_path / "q.tsv"), "-o", str(tmp_path / "run")]
    assert main([*search, "--mmap", "--scoring", "lm", "-q"]) == 2
    one_line_error(capsys, f"{bad}: corrupt projected-index: tf_data of row 1 has a value that is not > 0")
    assert not (tmp_path / "run").exists()
