"""``clirkit run FILE``: run an experiment file (train, tune on dev, test, report; :mod:`clirkit.experiment`);
``clirkit run --keys [KIND]``: every key an experiment file may hold."""

from __future__ import annotations

from clirkit.cli.common import add_quiet, add_verb, folder_name, positive_int
from clirkit.cli.experiments import collection_option, run_resumable


def add_parser(sub) -> None:
    from clirkit.experiment.kinds import KINDS

    p = add_verb(
        sub,
        "run",
        "run an experiment file (TOML): systems trained, fusions tuned on dev, test report "
        "with significance, runs, models and figures in one folder",
        run,
    )
    p.add_argument(
        "experiment", metavar="FILE", nargs="?", help="experiment file (TOML; see `clirkit demo --show` and --keys)"
    )
    p.add_argument(
        "--keys",
        nargs="?",
        const="",
        default=None,
        metavar="KIND",
        help="print every key of an experiment file, or a system kind's keys with their defaults (one of "
        f"{', '.join(KINDS)}, or fusion), and stop",
    )
    p.add_argument(
        "-o",
        "--output-dir",
        type=folder_name,
        default=None,
        help="folder for runs, models and the report (default: the file's name without .toml), replaced "
        "as a whole when the run ends; a rerun reuses what is already there",
    )
    p.add_argument(
        "--collection",
        default=None,
        help="run the file on another collection (a known name or a collection folder, relative to the current folder)",
    )
    p.add_argument("--variant", default=None, help="collection variant (default: the file's, else the first)")
    p.add_argument("-j", "--jobs", type=positive_int, default=None, help="worker processes (default: the file's jobs)")
    add_quiet(p)


def run(args) -> int:
    from pathlib import Path

    from clirkit.errors import ClirkitError
    from clirkit.experiment import Experiment

    if args.keys is not None:
        from clirkit.experiment.keyshelp import keys_text

        given = [
            name
            for name, value in (
                (args.experiment, args.experiment),
                ("-o/--output-dir", args.output_dir),
                ("--collection", args.collection),
                ("--variant", args.variant),
                ("-j/--jobs", args.jobs),
            )
            if value is not None
        ]
        if given:  # --keys prints and stops: nothing would run
            raise ClirkitError(
                f"--keys lists the keys an experiment file may hold and runs nothing: drop {', '.join(given)} "
                "(or --keys)"
            )

        print(keys_text(args.keys or None))
        return 0
    if args.experiment is None:
        raise ClirkitError("give an experiment file (clirkit run FILE), or --keys to list what it may hold")
    collection = collection_option(args.collection)
    exp = Experiment.read(args.experiment, collection=collection, variant=args.variant, jobs=args.jobs)
    folder = args.output_dir if args.output_dir is not None else Path(args.experiment).stem
    print(run_resumable(exp, folder, quiet=args.quiet).text)
    return 0
