"""Boosting from the best learning-free system on every dev collection with training queries (issue 37).

For each collection, one experiment file (written to ``OUT/NAME.toml``, run by the experiment runner into
``OUT/NAME/``): DT, PSQ (their defaults), the DT+PSQ fusion with weights tuned on the dev sample, and ``Boost``
boosted from that fusion with the demo's settings (6,000 rounds, max-df .05, dev every 100 rounds, beta over
2, 5, 10, 20, seed 0, 400 dev queries sampled). The report's baseline is the fusion, so every p is Boost's (and
PSQ's) against the system it boosts; dev and test are both reported (settings were chosen on nave-en-es dev only).

    python boosting/across.py -o boosting/results/across                 # every collection (hours on 2 cores)
    python boosting/across.py -o boosting/results/across --collections gettext-de-en
    python boosting/across.py -o boosting/results/across --report        # the Markdown table of boosting/README.md

``boosting/results/across/`` keeps each collection's experiment file and its ``results.txt`` (as ``NAME.txt``), but
multi30k-de-en's (built from third-party data, never committed).

A collection whose folder holds ``results.txt`` is not run again (delete the folder to redo it).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

COLLECTIONS = [
    "nave-en-es",
    "bible-verse-es-en:topical",
    "debian-desc-de-en",
    "gettext-de-en",
    "multi30k-de-en",
    "manpages-de-en",
    "debian-deps-en-fr",
    "debian-desc-es-en",
    "debian-desc-fr-en",
    "debian-desc-ru-en",
    "debian-desc-ja-en",
    "debian-desc-ko-en",
    "gettext-es-en",
    "gettext-ru-en",
    "gettext-zh-en",
    "gettext-ja-en",
    "gettext-ko-en",
    "gettext-th-en",
    "manpages-es-en",
    "manpages-ru-en",
]
MEASURES = ["AP", "PRES@1000", "nDCG@10"]
SYSTEMS = ("PSQ", "DT+PSQ", "Boost")

EXPERIMENT = """name = "{name}"
collection = "{collection}"
{variant}measures = ["AP", "PRES@1000", "nDCG@10"]
baseline = "DT+PSQ"
gains = ["AP", "PRES@1000", "nDCG@10"]
report_splits = ["dev", "test"]
figures = false
seed = 0
jobs = 2
dev_queries = 400
{train}keep_runs = []

[systems.DT]
kind = "dt"

[systems.PSQ]
kind = "psq"

[systems.Boost]
kind = "boost"
base = "DT+PSQ"
rounds = 6000
max_df = 0.05
eval_every = 100
{systems}
[fusions."DT+PSQ"]
systems = ["DT", "PSQ"]
step = 0.1
"""


def experiment_text(
    name: str, collection: str, *, variant: str | None = None, train_queries: int = 0, systems: str = ""
) -> str:
    """The experiment file of the study: DT, PSQ, DT+PSQ and Boost from it (and ``systems``, more tables of TOML),
    on ``collection`` (its ``variant``), trained on the first ``train_queries`` (0: all)."""
    return EXPERIMENT.format(
        name=name,
        collection=collection,
        variant=f'variant = "{variant}"\n' if variant else "",
        train=f"train_queries = {train_queries}\n" if train_queries else "",
        systems=f"\n{systems}" if systems else "",
    )


def run_file(text: str, path: Path, folder: Path, quiet: bool) -> None:
    """Write the experiment ``text`` to ``path`` and run it into ``folder``, unless ``folder`` holds its
    ``results.txt``."""
    from clirkit.experiment import Experiment, run_experiment

    if (folder / "results.txt").exists():
        return
    path.write_text(text, encoding="utf-8")
    print(f"running {path}", file=sys.stderr, flush=True)
    run_experiment(Experiment.read(path), folder, quiet=quiet)


def run(entry: str, out: Path, quiet: bool) -> None:
    """Run the experiment of collection ``entry`` (``NAME`` or ``NAME:VARIANT``) into ``out/NAME``."""
    from clirkit import datasets

    name, _, variant = entry.partition(":")
    stem = entry.replace(":", "-")
    run_file(
        experiment_text(stem, name, variant=variant or datasets.variants(name)[0]),
        out / f"{stem}.toml",
        out / stem,
        quiet,
    )


def parse(text: str, systems=SYSTEMS) -> dict:
    """``{split: {system: {measure: (value, marked)}}}`` and ``{split: {system: {measure: (points, p)}}}`` of a
    results.txt (the runner's tables of ``systems`` and its "gains over DT+PSQ" lines)."""
    tables: dict = {}
    gains: dict = {}
    split = None
    for line in text.splitlines():
        head = re.match(r"\S+ \(\S+\), (\w+) split", line)
        if head:
            split = head.group(1)
            tables[split], gains[split] = {}, {}
            continue
        cells = line.split()
        if split and cells and cells[0] in systems and len(cells) == 2 + len(MEASURES) and cells[1].isdigit():
            tables[split][cells[0]] = {
                m: (float(c.lstrip("*")), c.startswith("*")) for m, c in zip(MEASURES, cells[2:])
            }
        gain = re.match(r"(\S+) vs DT\+PSQ: (.*)", line)
        if split and gain:
            gains[split][gain.group(1)] = {
                m: (float(d), float(p)) for m, d, p in re.findall(r"(\S+) ([+-][\d.]+) \(p ([\d.]+)\)", gain.group(2))
            }
    return {"tables": tables, "p": gains}


def report(out: Path) -> str:
    """The Markdown table: per collection and split, PSQ, DT+PSQ and Boost, Boost's gain over DT+PSQ with p."""
    rows = [
        "| collection | split | PSQ AP | DT+PSQ AP | Boost AP | Boost - DT+PSQ AP (p) | PRES@1000 (p) | "
        "nDCG@10 (p) | dev: beta, rounds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in COLLECTIONS:
        name = entry.replace(":", "-")
        path = out / name / "results.txt"
        path = path if path.exists() else out / f"{name}.txt"  # as kept in boosting/results/across/
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        parsed = parse(text)
        learned = re.search(r"Boost: beta (\S+) .*?, (\d+) rounds", text)
        for split in ("dev", "test"):
            t, p = parsed["tables"].get(split, {}), parsed["p"].get(split, {}).get("Boost", {})
            if not all(s in t for s in SYSTEMS):
                continue
            gain = [f"{p[m][0]:+.2f} ({p[m][1]:.4f})" if m in p else "" for m in MEASURES]
            rows.append(
                f"| {entry} | {split} | {t['PSQ']['AP'][0]:.4f} | {t['DT+PSQ']['AP'][0]:.4f} | "
                f"{t['Boost']['AP'][0]:.4f} | "
                + " | ".join(gain)
                + f" | {learned.group(1) + ', ' + learned.group(2) if learned and split == 'dev' else ''} |"
            )
    return "\n".join(rows)


def study_parser(doc: str) -> argparse.ArgumentParser:
    """The options every study script of this folder has: ``-o/--output`` (the folder of its experiments),
    ``--report`` (print its Markdown table) and ``-q``."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True, help="folder of the experiments and results")
    parser.add_argument("--report", action="store_true", help="print the Markdown table of what was run")
    parser.add_argument("-q", "--quiet", action="store_true")
    return parser


def run_study(args, items, run_one, report_of) -> int:
    """Print ``report_of(output)`` (``--report``), or run ``run_one(item, output, quiet)`` for each item."""
    if args.report:
        print(report_of(args.output))
        return 0
    args.output.mkdir(parents=True, exist_ok=True)
    for item in items:
        run_one(item, args.output, args.quiet)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = study_parser(__doc__)
    parser.add_argument("--collections", nargs="+", default=COLLECTIONS, help="NAME or NAME:VARIANT (default: all)")
    args = parser.parse_args(argv)
    return run_study(args, args.collections, run, report)


if __name__ == "__main__":
    sys.exit(main())
