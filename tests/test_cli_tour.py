"""The README's tour, as written: every command parses with its verb's own options, every file a command reads is
one of the export's or made by a command above it, and the kappa line fuses PSQ with the model boosted from the
DT+PSQ fusion (the demo's PSQ+Boost(k=0.5) fusion), not with the standalone model; boosting/README.md gives the
tour's BoostCLIR recipe, the demo's settings."""

from __future__ import annotations

import shlex
from pathlib import Path

import tomllib

from clirkit.cli import build_parser

README = Path(__file__).parent.parent / "README.md"
SHIPPED = Path(__file__).parent.parent / "clirkit" / "experiments" / "demo.toml"
EXPORTED = [
    "docs.tsv",
    "queries.train.tsv",
    "queries.dev.tsv",
    "queries.test.tsv",
    "train.qrels",
    "dev.qrels",
    "test.qrels",
    "parallel.en.txt",
    "parallel.es.txt",
    "README.txt",
]  # test_cli_datasets checks the export
FILES = (".run", ".npz", ".tsv", ".qrels", ".txt")


def tour() -> list[list[str]]:
    """The tour block's commands as argument lists."""
    section = README.read_text(encoding="utf-8").split("## A tour", 1)[1]
    return commands_of(section.split("every command below runs as written", 1)[1].split("```sh\n", 1)[1])


def commands_of(text: str) -> list[list[str]]:
    """The commands of the code block ``text`` starts (up to its closing fence) as argument lists: continuation
    lines joined, comments dropped, the shell variables it sets ($train, $dev) expanded."""
    block = text.split("```", 1)[0]
    commands, variables, current = [], {}, ""
    for raw in block.splitlines():
        if raw.rstrip().endswith("\\"):
            current += raw.rstrip()[:-1] + " "
            continue
        words, current = shlex.split(current + raw, comments=True), ""
        if len(words) == 1 and "=" in words[0] and not words[0].startswith("-"):
            name, value = words[0].split("=", 1)
            variables[name] = shlex.split(value)
        elif words:
            commands.append([w for word in words for w in (variables[word[1:]] if word.startswith("$") else [word])])
    return commands


def made_by() -> dict[str, list[str]]:
    """``{file: the command that wrote it}`` over the tour, each command parsed by its verb's parser and checked to
    read only files written above it."""
    made: dict[str, list[str]] = {}
    commands = tour()
    assert commands[0][:3] == ["clirkit", "datasets", "export"] and len(commands) >= 15
    for argv in commands:
        assert argv[0] == "clirkit", argv
        args = build_parser(argv[1:]).parse_args(argv[1:])
        outputs = [o for o in (getattr(args, "output", None), getattr(args, "save_index", None)) if o]
        if argv[1:3] == ["datasets", "export"]:
            made.update({f"{args.output}/{name}": argv for name in EXPORTED})
            continue
        read = [w for w in argv[2:] if w.endswith(FILES) and w not in outputs]
        assert [w for w in read if w not in made] == [], argv
        made.update({o: argv for o in outputs})
    return made


def test_every_tour_command_parses_and_reads_only_files_made_above_it():
    made = made_by()
    assert {"psq.run", "boost.run", "agg.run", "boost-2g.npz"} <= set(made)


def test_the_tour_boosts_from_the_tuned_dt_psq_fusion_and_fuses_psq_with_it_as_the_demo_does():
    made = made_by()
    kappa = next(argv for argv in tour() if argv[1] == "aggregate" and "--kappa" in argv)
    args = build_parser(kappa[1:]).parse_args(kappa[1:])
    runs = [r for r in kappa[2:] if r.endswith(".run") and r != args.output]
    assert len(runs) == 2 and args.kappa == 0.5
    psq, boosted = (made[r] for r in runs)
    assert psq[1] == "psq" and boosted[1] == "boost-rank"
    trained = made[boosted[2]]
    assert trained[1] == "boost-train" and "--base-run" in trained, "the standalone model, not the boosted one"
    bases = trained[trained.index("--base-run") + 1 : trained.index("--base-run") + 3]
    candidates = boosted[boosted.index("--candidates") + 1]
    for fused in (*bases, candidates):  # DT's and PSQ's runs of one split fused with the weights tuned on dev
        argv = made[fused]
        parsed = build_parser(argv[1:]).parse_args(argv[1:])
        assert argv[1] == "aggregate" and parsed.tune and [made[r][1] for r in parsed.runs] == ["dt", "psq"]
        assert [made[r][1] for r in parsed.dev_runs] == ["dt", "psq"]
    demo = tomllib.loads(SHIPPED.read_text(encoding="utf-8"))
    fusion = demo["fusions"]["PSQ+Boost(k=0.5)"]
    assert fusion["weights"] == [0.5, 0.5] and demo["systems"][fusion["systems"][1]]["base"] == "DT+PSQ"
    assert demo["fusions"]["DT+PSQ"]["systems"] == ["DT", "PSQ"]


def _settings(argv: list[str]) -> dict:
    """The hyper-parameters a boost-train command gives (its data, output and base runs apart)."""
    from clirkit.cli.params import params_of

    return params_of(build_parser(argv[1:]).parse_args(argv[1:]))


def test_boosting_readme_gives_the_tours_boostclir_recipe_with_the_demos_settings():
    text = (README.parent / "boosting" / "README.md").read_text(encoding="utf-8")
    recipe = commands_of(text.split("The recipe, from the command line", 1)[1].split("```\n", 1)[1])
    tour_trains = [argv for argv in tour() if argv[1] == "boost-train"]
    recipe_trains = [argv for argv in recipe if argv[1] == "boost-train"]
    assert len(tour_trains) == len(recipe_trains) == 2
    for ours, theirs in zip(sorted(tour_trains, key=lambda a: a[-1]), sorted(recipe_trains, key=lambda a: a[-1])):
        assert ours[-1] == theirs[-1] and _settings(ours) == _settings(theirs), (ours, theirs)
    from_base = next(_settings(a) for a in tour_trains if "--base-run" in a)
    demo = tomllib.loads(SHIPPED.read_text(encoding="utf-8"))["systems"]["Boost"]
    from clirkit.boost import BoostRanker
    from clirkit.cli.params import default_of

    wanted = [demo.get(k, default_of(BoostRanker, k)) for k in ("rounds", "max_df", "eval_every")]
    assert [from_base[k] for k in ("rounds", "max_df", "eval_every")] == wanted and demo["base"] == "DT+PSQ"
    assert next(_settings(a) for a in tour_trains if "--base-run" not in a)["ngram"] == 2
