"""The boosted ranker's settings chosen across the dev collections (issue 37): one setting changed at a time.

For each collection of ``boosting/across.py`` (all have training queries), one experiment file (``OUT/NAME.toml``,
run into ``OUT/NAME/``): DT, PSQ, their fusion DT+PSQ tuned on dev, ``Boost`` boosted from it with the demo's
settings, and one variant of ``Boost`` per setting in ``VARIANTS`` (``Boost-grades`` only where the qrels have
grades above 1). A setting is chosen by its mean dev AP over the collections against the demo's, and kept only if
no collection's dev or test score falls significantly below DT+PSQ (the report's baseline).

    python boosting/defaults.py -o OUT                        # every collection (hours on 2 cores)
    python boosting/defaults.py -o OUT --variants Boost-df10   # some variants only (Boost-df100: every n-gram)
    python boosting/defaults.py -o OUT --collections nave-en-es
    python boosting/defaults.py -o OUT --report               # the Markdown table of boosting/README.md

A collection whose folder holds ``results.txt`` is not run again. ``boosting/results/defaults/`` keeps each
collection's experiment file and ``results.txt`` (as ``NAME.txt``), but multi30k-de-en's (third-party data).
"""

from __future__ import annotations

import sys
from pathlib import Path

from across import COLLECTIONS, experiment_text, parse, run_file, run_study, study_parser

VARIANTS = {
    "Boost-beta": "beta_grid = [0.5, 1, 2, 5, 10, 20]",
    "Boost-df10": "max_df = 0.1",
    "Boost-uniform": "hard_negatives = 0",
    "Boost-bags": "bags = 4\nbag_fraction = 0.5",
    "Boost-grades": "grade_pairs = 1",
    "Boost-df100": "max_df = 1.0",
}
DEMO = 'kind = "boost"\nbase = "DT+PSQ"\nrounds = 6000\nmax_df = 0.05\neval_every = 100\n'


def graded(name: str, variant: str) -> bool:
    """Whether the training qrels of collection ``name`` (``variant``) hold a grade above 1."""
    from clirkit import datasets

    return int(datasets.load(name, variant=variant).qrels("train").rels.max()) > 1


def variant_systems(grades: bool, names=tuple(VARIANTS)) -> str:
    """The TOML tables of the variants ``names``: the demo's Boost with one setting changed."""
    tables = []
    for name, setting in VARIANTS.items():
        if name not in names or (name == "Boost-grades" and not grades):
            continue
        keys = dict(line.split(" = ", 1) for line in (DEMO + setting).splitlines())
        tables.append(f"[systems.{name}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()))
    return "\n".join(tables)


def run(entry: str, out: Path, quiet: bool, names=tuple(VARIANTS)) -> None:
    """Run the study's experiment on collection ``entry`` (``NAME`` or ``NAME:VARIANT``) into ``out/NAME``."""
    from clirkit import datasets

    name, _, variant = entry.partition(":")
    variant = variant or datasets.variants(name)[0]
    stem = entry.replace(":", "-")
    text = experiment_text(
        f"defaults-{stem}", name, variant=variant, systems=variant_systems(graded(name, variant), names)
    )
    run_file(text, out / f"{stem}.toml", out / stem, quiet)


def report(out: Path) -> str:
    """The Markdown table: dev AP of DT+PSQ and of each setting per collection, the mean gain over DT+PSQ and
    over the demo's Boost (on the collections the setting ran on), and the settings that fall significantly
    (p < .05) below DT+PSQ on a collection's dev or test split."""
    names = ["Boost", *VARIANTS]
    rows = ["| collection | DT+PSQ | " + " | ".join(names) + " |", "|---|" + "---|" * (len(names) + 1)]
    sums: dict = {n: [] for n in names}
    below: dict = {n: [] for n in names}
    over_demo: dict = {n: [] for n in names}
    for entry in COLLECTIONS:
        stem = entry.replace(":", "-")
        path = out / stem / "results.txt"
        path = path if path.exists() else out / f"{stem}.txt"
        if not path.exists():
            continue
        parsed = parse(path.read_text(encoding="utf-8"), systems=("DT+PSQ", *names))
        dev = {n: v["AP"][0] for n, v in parsed["tables"].get("dev", {}).items()}
        cells = []
        for n in names:
            if n not in dev:
                cells.append("")
                continue
            sums[n].append(dev[n] - dev["DT+PSQ"])
            if "Boost" in dev:
                over_demo[n].append(dev[n] - dev["Boost"])
            cells.append(f"{dev[n]:.4f}")
            for split in ("dev", "test"):
                points, p = parsed["p"].get(split, {}).get(n, {}).get("AP", (0.0, 1.0))
                if points < 0 and p < 0.05:
                    below[n].append(f"{stem} {split}")
        rows.append(f"| {entry} | {dev['DT+PSQ']:.4f} | " + " | ".join(cells) + " |")
    rows.append(
        "| mean dev gain over DT+PSQ (points, collections) | | "
        + " | ".join(f"{100 * sum(v) / len(v):+.2f} ({len(v)})" if v else "" for v in sums.values())
        + " |"
    )
    rows.append(
        "| mean dev gain over Boost on the same collections (points) | | "
        + " | ".join(f"{100 * sum(over_demo[n]) / len(over_demo[n]):+.2f}" if over_demo[n] else "" for n in names)
        + " |"
    )
    rows.append("| significantly below DT+PSQ | | " + " | ".join(", ".join(b) or "none" for b in below.values()) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = study_parser(__doc__)
    parser.add_argument("--collections", nargs="+", default=COLLECTIONS, help="NAME or NAME:VARIANT (default: all)")
    parser.add_argument(
        "--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS), help="the variants run (default: all)"
    )
    args = parser.parse_args(argv)
    return run_study(args, args.collections, lambda entry, out, quiet: run(entry, out, quiet, args.variants), report)


if __name__ == "__main__":
    sys.exit(main())
