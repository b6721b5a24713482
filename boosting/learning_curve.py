"""The learning curve of the boosted ranker on debian-deps-en-fr (issue 37): the standalone table and the ranker
boosted from the DT+PSQ fusion, trained on the first N training queries, against DT, PSQ and DT+PSQ.

One experiment file per N (``OUT/nN.toml``, run into ``OUT/nN/``; ``train_queries = N``): DT, PSQ, the DT+PSQ
fusion tuned on 400 dev queries, ``Boost`` (boosted from DT+PSQ, the demo's settings) and ``Boost-1g`` (the
paper's standalone table: unigram pairs, max-df .05, 6,000 rounds, dev every 200). Queries are taken in the
collection's order (sorted package names). The report's baseline is DT+PSQ.

    python boosting/learning_curve.py -o boosting/results/curve                # N = full, 1/2, 1/4, 1/8
    python boosting/learning_curve.py -o boosting/results/curve --report       # the Markdown table

A size whose folder holds ``results.txt`` is not run again. ``boosting/results/curve/`` keeps each size's experiment
file and its ``results.txt`` (as ``nN.txt``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

COLLECTION = "debian-deps-en-fr"
SIZES = (18756, 9378, 4689, 2345)
SYSTEMS = ("DT", "PSQ", "DT+PSQ", "Boost", "Boost-1g")

STANDALONE = """[systems.Boost-1g]
kind = "boost"
rounds = 6000
max_df = 0.05
eval_every = 200
"""


def run(n: int, out: Path, quiet: bool) -> None:
    """The experiment trained on the first ``n`` training queries, into ``out/nN``: boosting/across.py's systems
    and the standalone table."""
    from across import experiment_text, run_file

    run_file(
        experiment_text(f"curve-n{n}", COLLECTION, train_queries=n, systems=STANDALONE),
        out / f"n{n}.toml",
        out / f"n{n}",
        quiet,
    )


def report(out: Path) -> str:
    """AP (test, and dev) of each system by the number of training queries; * = p < .05 against DT+PSQ."""
    rows = ["| training queries | split | " + " | ".join(SYSTEMS) + " |", "|---" * (2 + len(SYSTEMS)) + "|"]
    for n in sorted(SIZES):
        path = out / f"n{n}" / "results.txt"
        path = path if path.exists() else out / f"n{n}.txt"  # as kept in boosting/results/curve/
        if not path.exists():
            continue
        split, values = None, {}
        for line in path.read_text(encoding="utf-8").splitlines():
            head = re.match(r"\S+ \(\S+\), (\w+) split", line)
            if head:
                split = head.group(1)
            cells = line.split()
            if split and cells and cells[0] in SYSTEMS and len(cells) >= 3 and cells[1].isdigit():
                values[split, cells[0]] = cells[2]
        for s in ("dev", "test"):
            rows.append(f"| {n:,} | {s} | " + " | ".join(values.get((s, name), "") for name in SYSTEMS) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    from across import run_study, study_parser

    parser = study_parser(__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="numbers of training queries")
    args = parser.parse_args(argv)
    return run_study(args, args.sizes, run, report)


if __name__ == "__main__":
    sys.exit(main())
