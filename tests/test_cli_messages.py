"""Messages in the words of the verb that says them: a queries reader's error names the verb's options, not the
Python keywords of clirkit.formats.read_queries, and an unrecognized argument points to the verb's own help."""

from __future__ import annotations

import json

import pytest

from clirkit.cli import main

HC4 = json.dumps({"topic_id": "1", "topics": [{"lang": "eng", "topic_title": "light", "topic_description": "x"}]})


@pytest.fixture
def files(indexed_dir):
    (indexed_dir / "hc4.jsonl").write_text(HC4 + "\n", encoding="utf-8")
    (indexed_dir / "pid.jsonl").write_text('{"pid": "q1", "text": "luz"}\n', encoding="utf-8")
    return indexed_dir


def _error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("verb", [["search"], ["dt", "--translated", "{d}/hc4.jsonl"]])
def test_query_id_field_on_topics_is_named_as_the_verbs_option(files, capsys, verb):
    argv = [w.format(d=files) for w in verb] + [
        "--index",
        f"{files}/ix.npz",
        "--queries",
        f"{files}/hc4.jsonl",
        "--query-id-field",
        "pid",
        "-o",
        f"{files}/x.run",
    ]
    assert main(argv) == 2
    assert _error(capsys) == (
        f"clirkit: error: {files}/hc4.jsonl: --query-id-field applies to TSV and JSONL "
        f"queries (HC4 topics have their own ids); their text is chosen with --query-fields\n"
    )


def test_a_missing_query_id_key_names_query_id_field_and_a_documents_names_id_field(files, capsys):
    assert (
        main(["search", "--index", f"{files}/ix.npz", "--queries", f"{files}/pid.jsonl", "-o", f"{files}/x.run"]) == 2
    )
    assert _error(capsys).endswith(
        "no query id key (looked for qid, query_id, id, _id; found: pid, text); name it with --query-id-field\n"
    )
    assert (
        main(
            [
                "search",
                "--index",
                f"{files}/ix.npz",
                "--queries",
                f"{files}/pid.jsonl",
                "--query-id-field",
                "pid",
                "-o",
                f"{files}/x.run",
                "-q",
            ]
        )
        == 0
    )
    assert main(["index", f"{files}/pid.jsonl", "-o", f"{files}/y.npz", "--lang", "es", "-q"]) == 2
    assert _error(capsys).endswith(
        "no document id key (looked for docid, doc_id, id, _id; found: pid, text); name it with --id-field\n"
    )  # index's own option
    (files / "body.jsonl").write_text('{"docid": "d1", "body": "luz"}\n', encoding="utf-8")
    assert main(["index", f"{files}/body.jsonl", "-o", f"{files}/y.npz", "--lang", "es", "-q"]) == 2
    assert _error(capsys).endswith("found: docid, body); name it with --text-fields\n")


@pytest.mark.parametrize(
    "argv, verb",
    [
        (["dt", "--index", "x", "--queries", "y", "--table", "z", "-o", "o", "--kk", "1"], "clirkit dt"),
        (["ttable", "convert", "a", "-o", "b", "--bar"], "clirkit ttable convert"),
        (["datasets", "list", "extra"], "clirkit datasets list"),
        (["ttable", "--bar"], "clirkit ttable"),
    ],
)
def test_an_unrecognized_argument_points_to_the_verbs_own_help(argv, verb, capsys):
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == 2
    unknown = " ".join(argv[argv.index("-o") + 2 :] if "-o" in argv else argv[len(verb.split()) - 1 :])
    assert _error(capsys) == f"{verb}: error: unrecognized arguments: {unknown} (see {verb} --help)\n"
