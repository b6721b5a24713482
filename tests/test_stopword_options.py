"""Every verb reads its stopword options one way (clirkit.cli.common.stopword_option): ``none`` is no list (the same
output as leaving the option out), ``snowball`` the Snowball list of the language, anything else a FILE of words;
a missing FILE is a one-line error naming it, status 2, nothing written."""

from __future__ import annotations

import pytest

from clirkit.cli import main

DICTIONARY = "light luz\nlight lumbrera\ndarkness tinieblas\ngod dios\nwaters aguas\nthe la\nthe el\nand y\n"
QUERIES = "q1\tthe light and the darkness\nq2\tgod and the waters\nq3\tthe\n"


@pytest.fixture
def folder(indexed_dir):
    (indexed_dir / "en-es.txt").write_text(DICTIONARY, encoding="utf-8")
    (indexed_dir / "q.tsv").write_text(QUERIES, encoding="utf-8")
    (indexed_dir / "stop.txt").write_text("# both languages' words\nthe\nand\nla\nel\ny\n", encoding="utf-8")
    convert = ["ttable", "convert", str(indexed_dir / "en-es.txt"), "--format", "muse", "-q"]
    assert main([*convert, "--source-lang", "en", "--target-lang", "es", "-o", str(indexed_dir / "t.npz")]) == 0
    return indexed_dir


def commands(d, out: str) -> dict[str, list[str]]:
    """Each verb of :data:`CASES` without its stopword option, writing ``out``."""
    search = ["--index", str(d / "ix.npz"), "--queries", str(d / "q.tsv"), "--table", str(d / "t.npz"), "-q"]
    return {
        "index --stopwords": ["index", str(d / "docs.tsv"), "--lang", "es", "-o", out, "-q"],
        "dt --source-stopwords": ["dt", *search, "-o", out],
        "psq --source-stopwords": ["psq", *search, "-o", out],
        "psq --target-stopwords": ["psq", *search, "-o", out],
        "ttable prune --target-stopwords": ["ttable", "prune", str(d / "t.npz"), "--min-prob", "0", "-o", out, "-q"],
    }


CASES = [
    "index --stopwords",
    "dt --source-stopwords",
    "psq --source-stopwords",
    "psq --target-stopwords",
    "ttable prune --target-stopwords",
]


def run(d, case: str, value: str | None, out: str) -> int:
    option = case.split()[-1]
    argv = commands(d, out)[case]
    return main(argv if value is None else [*argv, option, value])


@pytest.mark.parametrize("case", CASES)
def test_none_is_no_list_and_a_file_or_snowball_is_read(folder, case):
    suffix = ".npz" if case.startswith(("index", "ttable")) else ".run"
    outputs = {}
    for value in (None, "none", str(folder / "stop.txt"), "snowball"):
        out = folder / f"out.{value is None}.{str(value).rsplit('/', 1)[-1]}{suffix}"
        assert run(folder, case, value, str(out)) == 0, value
        outputs[value] = out.read_bytes()
    assert outputs[None] == outputs["none"]
    assert outputs[str(folder / "stop.txt")] != outputs["none"] or case.startswith("ttable"), "the file's words"


@pytest.mark.parametrize("case", CASES)
def test_a_missing_stopword_file_is_a_one_line_error_naming_it(folder, case, capsys):
    out = folder / ("missing.npz" if case.startswith(("index", "ttable")) else "missing.run")
    assert run(folder, case, str(folder / "nosuch.txt"), str(out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nosuch.txt" in err, err
    assert not out.exists()


def test_ttable_prune_snowball_drops_the_target_languages_stopwords_as_the_table_analyzes_them(folder):
    from clirkit.translation import load_table

    pruned = folder / "p.npz"
    assert run(folder, "ttable prune --target-stopwords", "snowball", str(pruned)) == 0
    table, whole = load_table(str(pruned)), load_table(str(folder / "t.npz"))
    assert table.translations("light") == whole.translations("light")
    assert whole.translations("the") and not table.translations("the") and not table.translations("and")
