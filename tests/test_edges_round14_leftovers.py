"""Leftovers of issue 40's edge round 14: a fusion searched with the weights tuned at the depth it searches at, an eval's record
of the test it made, a PSQ error that names the problem, one option action for the given options, and ``ttable
show`` reading a table as ``dt`` and ``psq`` read it."""

from __future__ import annotations

import re

import pytest

from clirkit.errors import ClirkitError
from clirkit.estimator import Resources
from clirkit.run import Qrels, Run
from clirkit.runsystem import RunFile
from clirkit.systems import Fusion

# two systems' runs over the dev and test queries: q1, q2 dev, q3 test
_ROWS = {
    "A": [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d3", 1.0), ("q2", "d4", 2.0), ("q2", "d5", 1.0)],
    "B": [("q1", "d3", 3.0), ("q1", "d1", 2.0), ("q1", "d2", 1.0), ("q2", "d5", 2.0), ("q2", "d4", 1.0)],
}
_DEV = Resources(topics={"dev": {"q1": "", "q2": ""}}, qrels={"dev": Qrels(["q1", "q2"], ["d3", "d5"], [1, 1])})


def _systems():
    return [RunFile(run=Run.ranked(*zip(*rows), tag=tag)).fit() for tag, rows in _ROWS.items()]


def test_a_fusion_tuned_at_one_depth_tunes_again_to_search_or_fuse_at_another():
    fusion = Fusion(_systems()).fit(_DEV)  # tuned on the dev runs as every search makes them: 1,000 deep
    assert fusion.depth_ == 1000
    assert fusion.search({"q1": ""}).docids.tolist() == fusion.search({"q1": ""}, depth=1000).docids.tolist()
    at_2 = Fusion(_systems()).fit_runs([_DEV.run(s, "dev") for s in _systems()], _DEV.qrels("dev"), depth=2)
    assert fusion.search({"q1": ""}, depth=2).docids.tolist() == at_2.search({"q1": ""}, depth=2).docids.tolist()
    runs = [s.search({"q1": ""}, depth=2) for s in fusion.systems]
    assert fusion.fuse(runs, depth=2).docids.tolist() == at_2.fuse(runs, depth=2).docids.tolist()
    assert fusion.depth_weights_[2] == at_2.weights_


def test_a_fusion_tuned_at_the_depth_it_searches_at_fuses_as_tuned():
    fusion = Fusion(_systems())
    dev_runs = [_DEV.run(s, "dev") for s in fusion.systems]
    fusion.fit_runs(dev_runs, _DEV.qrels("dev"), depth=2)
    assert fusion.depth_ == 2
    fused = fusion.search({"q1": ""}, depth=2)
    assert len(fused.docids) == 2
    # given weights are not tuned at any depth: any depth fuses them
    given = Fusion(_systems(), weights=[0.5, 0.5]).fit(_DEV)
    assert given.depth_ is None and len(given.search({"q1": ""}, depth=2).docids) == 2


def test_a_saved_fusion_keeps_the_depth_it_was_tuned_at(tmp_path):
    fusion = Fusion(_systems()).fit(_DEV)
    fusion.save(tmp_path / "f.npz")
    loaded = Fusion.load(tmp_path / "f.npz", systems=_systems())
    assert loaded.depth_ == 1000 and loaded.dev_runs_ is None  # the dev runs are not saved
    says = (
        "the weights were tuned on the fused dev runs cut to 1000 ranks, and this fusion, loaded from a file, keeps "
        "no dev runs to tune them again at depth 3: give depth=1000, or fit it again (fit, or fit_runs) to fuse at "
        "any depth"
    )
    with pytest.raises(ClirkitError, match="^" + re.escape(says) + "$"):
        loaded.search({"q1": ""}, depth=3)
    assert loaded.search({"q1": ""}).docids.tolist() == fusion.search({"q1": ""}).docids.tolist()


# eval --format json: the settings of the test made, no other -------------------------------------------------


def _eval_json(tmp_path, capsys, *options: str) -> dict:
    import json

    from clirkit.cli import main

    (tmp_path / "e.qrels").write_text("q1 0 d1 1\nq2 0 d3 1\nq3 0 d5 1\n", encoding="utf-8")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq2 Q0 d3 1 2 a\nq3 Q0 d4 1 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 d4 1 2 b\nq3 Q0 d5 1 1 b\n")
    qrels = ["--qrels", str(tmp_path / "e.qrels")]
    assert main(["eval", *qrels, *options, "-m", "AP", "--format", "json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "runs, options, recorded",
    [
        (["a.run", "b.run"], ["--test", "t-test"], {"test": "t-test", "alpha": 0.05}),
        (
            ["a.run", "b.run"],
            ["--permutations", "7", "--seed", "2"],
            {"test": "randomization", "alpha": 0.05, "permutations": 7, "seed": 2},
        ),
        (["a.run", "b.run"], ["--test", "none"], {"test": "none"}),
        (["a.run"], [], {"test": "none"}),  # one run: no test made
    ],
)
def test_eval_json_records_only_the_settings_of_the_test_it_made(tmp_path, capsys, runs, options, recorded):
    doc = _eval_json(tmp_path, capsys, *options, *(str(tmp_path / r) for r in runs))
    settings = {k: doc[k] for k in ("test", "alpha", "permutations", "seed") if k in doc}
    assert settings == recorded


# psq: a table to translate the documents, and an option of the queries' side ---------------------------------

_PIRKOLA = (
    "translates es -> en, from the documents' language ('es'): a table to translate the documents, and --mode pirkola "
    "applies to translating the queries only, which needs a table from the queries' language into 'es': give such "
    "a table (`clirkit ttable train` the other way; a dictionary read the other way: `clirkit ttable convert "
    "--reverse`), or leave out --mode pirkola to translate the documents with this one"
)


def test_psq_mode_pirkola_with_a_table_from_the_documents_language_names_the_mode(indexed_dir, capsys):
    from test_docpsq import REVERSE

    from clirkit.cli import main
    from clirkit.translation import save_table

    save_table(REVERSE, indexed_dir / "es-en.npz")
    (indexed_dir / "q.tsv").write_text("q1\tlight\n", encoding="utf-8")
    common = ["psq", "--index", str(indexed_dir / "ix.npz"), "--queries", str(indexed_dir / "q.tsv"), "-q"]
    table = ["--table", str(indexed_dir / "es-en.npz"), "-o", str(indexed_dir / "p.run")]
    assert main([*common, *table, "--mode", "pirkola"]) == 2
    assert capsys.readouterr().err == f"clirkit: error: {indexed_dir / 'es-en.npz'}: {_PIRKOLA}\n"
    assert not (indexed_dir / "p.run").exists()
    assert main([*common, *table, "--mode", "all", "--renormalize-in-vocabulary"]) == 2
    assert "and --mode all and --renormalize-in-vocabulary apply to translating the queries only" in (
        capsys.readouterr().err
    )


def test_psq_in_python_says_the_table_is_one_to_translate_the_documents_not_that_the_mode_chose(index):
    from test_docpsq import REVERSE

    from clirkit.systems import PSQ

    with pytest.raises(ClirkitError) as caught:
        PSQ(mode="pirkola", source_lang="en").fit(Resources(index=index, table=REVERSE))
    assert str(caught.value) == (
        "the table translates into 'en' but the index is in 'es': the table is from the documents' language, one to "
        "translate them (reverse_table=...), and mode (--mode) applies to translating the queries only: give a table "
        "into 'es' as table=..., or this one as reverse_table=... without mode (--mode)"
    )


def test_an_experiment_psq_with_mode_and_a_table_from_the_documents_language_names_the_mode(mini, tmp_path, capsys):
    from test_docpsq import REVERSE

    from clirkit.cli import main
    from clirkit.translation import save_table

    save_table(REVERSE, tmp_path / "es-en.npz")
    path = tmp_path / "x.toml"
    path.write_text(
        f'collection = "{mini}"\nmeasures = ["AP"]\nfigures = false\n[systems.P]\nkind = "psq"\n'
        'table = "es-en.npz"\nmode = "pirkola"\n',
        encoding="utf-8",
    )
    assert main(["run", str(path), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert capsys.readouterr().err == (
        f"clirkit: error: {path}: system 'P': table es-en.npz: translates es -> en; this system reads a table from en "
        "into es (mode applies to translating the queries only, which reads a table from en into es: give one, or "
        "remove mode to translate the documents with this one)\n"
    )
    assert not (tmp_path / "out").exists()


# one argparse action remembers the options given, eval's test options among them --------------------------------


def test_eval_remembers_its_test_options_given_through_the_shared_action():
    import argparse

    from clirkit.cli import build_parser
    from clirkit.cli.params import StoreGiven, given

    argv = ["eval", "--qrels", "q.qrels", "a.run", "b.run", "--alpha", "0.05", "--test", "randomization"]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    assert [o for o in ("alpha", "permutations", "seed", "test") if given(args, o)] == ["alpha", "test"]
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    actions = {a.dest: type(a) for a in verbs.choices["eval"]._actions}
    assert [actions[o] for o in ("alpha", "permutations", "seed", "test")] == [StoreGiven] * 4
