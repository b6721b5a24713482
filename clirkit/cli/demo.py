"""``clirkit demo``: the experiment file shipped with clirkit (``clirkit/experiments/demo.toml``) on the
bundled collection: IBM Model 1, DT, PSQ, their fusion DT+PSQ, BoostCLIR boosted from that fusion, SCS and their
aggregates tuned on dev, evaluated on test with significance against PSQ."""

from __future__ import annotations

from clirkit.cli.common import add_quiet, add_verb, folder_name, positive_int


def add_parser(sub) -> None:
    p = add_verb(
        sub,
        "demo",
        "the full pipeline on a collection: IBM Model 1, DT, PSQ, BoostCLIR boosted from their fusion DT+PSQ, "
        "SCS and their aggregates, evaluated (default: the bundled nave-en-es, English queries -> Spanish "
        "verses); the shipped experiment file `clirkit run` reads",
        run,
    )
    p.add_argument(
        "--collection",
        default=None,
        help="another collection for the same experiment (default: the file's, nave-en-es)",
    )
    p.add_argument(
        "--variant", default=None, help="collection variant (default: the file's, or the collection's first)"
    )
    p.add_argument(
        "-o",
        "--output-dir",
        type=folder_name,
        default=None,
        help="folder for the report, models and runs (default: clirkit-demo)",
    )
    p.add_argument("--baselines-only", action="store_true", help="only DT and PSQ (no learned system, no fusion)")
    p.add_argument(
        "--show",
        action="store_true",
        help="print the shipped experiment file and stop (copy it to edit it); it runs nothing, so it takes no "
        "other option",
    )
    p.add_argument("-j", "--jobs", type=positive_int, default=None, help="worker processes (default: the file's jobs)")
    add_quiet(p)


def kept_runs(patterns: list[str], systems) -> list[str]:
    """The ``keep_runs`` patterns that still match a run of ``systems`` (the names left by --baselines-only),
    on either split: the others would be an error (a pattern matching no run)."""
    from clirkit.experiment.keepruns import matches_a_run

    return [p for p in patterns if matches_a_run(p, systems)]


def refuse_with_show(args) -> None:
    """ClirkitError naming the options given with ``--show``, which prints the shipped file as it is and runs
    nothing: they would change nothing."""
    from clirkit.errors import ClirkitError

    given = [
        option
        for option, value in (
            ("--collection", args.collection),
            ("--variant", args.variant),
            ("--baselines-only", args.baselines_only),
            ("-j/--jobs", args.jobs),
            ("-o/--output-dir", args.output_dir),
        )
        if value
    ]
    if given:
        raise ClirkitError(
            f"--show prints the shipped experiment file as it is and runs nothing: drop {', '.join(given)} (or --show)"
        )


def run(args) -> int:
    import tomllib

    from clirkit.cli.experiments import collection_option, run_resumable
    from clirkit.experiment import Experiment, shipped, with_overrides

    path = shipped("demo")
    if args.show:
        refuse_with_show(args)
        print(path.read_text(encoding="utf-8"), end="")
        return 0
    data = with_overrides(
        tomllib.loads(path.read_text(encoding="utf-8")),
        collection=collection_option(args.collection),
        variant=args.variant,
        jobs=args.jobs,
    )
    if args.baselines_only:
        data["systems"] = {n: s for n, s in data["systems"].items() if s["kind"] in ("dt", "psq")}
        data["fusions"] = {}
        data["keep_runs"] = kept_runs(data.get("keep_runs", ["*"]), data["systems"])
    exp = Experiment.from_dict(data, source=str(path), name="demo")
    print(run_resumable(exp, args.output_dir or "clirkit-demo", quiet=args.quiet).text)
    return 0
