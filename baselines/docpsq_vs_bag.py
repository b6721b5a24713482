"""PSQ's default (translating the documents, `PSQ()` with both tables of the collection's parallel corpus) against
the every-translation bag of the same corpus (`PSQ(mode="all")` over the query-side IBM Model 1 table pruned at
L .005, as in the defaults study of baselines/README.md), on the dev and test splits of the 14 dev collections:
mean AP and a two-sided paired randomization test (10,000 sign flips, seed 0).

    python baselines/docpsq_vs_bag.py -o baselines/results/docpsq-bag        # tables kept in OUT/work; ~5-30 min

Prints the Markdown table of baselines/README.md ("PSQ over translated documents").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "eval"))
import bench_docpsq as bench  # noqa: E402  (eval/ is not a package)

from clirkit.analysis import cached_tokens  # noqa: E402
from clirkit.estimator import Resources  # noqa: E402
from clirkit.significance import paired_test  # noqa: E402
from clirkit.systems import PSQ  # noqa: E402

BAG = {
    "translate": "queries",
    "mode": "all",
    "min_prob": 0.005,
    "cumulative": 0.95,
    "max_options": None,
    "scoring": "bm25",
}


def compare(name: str, work: Path) -> dict:
    """``{split: {"default", "bag", "p"}}`` of one collection (mean AP of each and the paired test's p)."""
    with cached_tokens():
        p = bench.prepared(name, work / name)
        c = p["c"]
        resources = Resources(
            index=p["index"],
            table=p["tables"]["fwd"],
            reverse_table=p["tables"]["rev"],
            parallel=p["parallel"],
            source_lang=c.source_lang,
            target_lang=c.target_lang,
        )
        ap = {}
        for label, params in (("bag", BAG), ("default", {})):
            system = PSQ(**params).fit(resources)
            ap[label] = {
                s: bench.per_query(system.search(p["topics"][s], excluded=c.excluded(s)), c.qrels(s))["AP"]
                for s in ("dev", "test")
            }
    out = {}
    for split in ("dev", "test"):
        qids = sorted(ap["bag"][split])
        default = np.array([ap["default"][split].get(q, 0.0) for q in qids])
        bag = np.array([ap["bag"][split][q] for q in qids])
        out[split] = {
            "default": float(default.mean()),
            "bag": float(bag.mean()),
            "p": float(paired_test(default, bag).p_value),
        }
    return out


def table(results: dict) -> str:
    def cell(r: dict) -> str:
        mark = ("+" if r["default"] > r["bag"] else "-") if r["p"] < 0.05 else ""
        return f"{r['default']:.3f}{mark} / {r['bag']:.3f}"

    lines = ["| collection | dev: default / bag | test: default / bag |", "|---|---:|---:|"]
    lines += [f"| {n} | {cell(r['dev'])} | {cell(r['test'])} |" for n, r in results.items()]
    means = {
        s: (np.mean([r[s]["default"] for r in results.values()]), np.mean([r[s]["bag"] for r in results.values()]))
        for s in ("dev", "test")
    }
    lines.append(
        f"| mean of {len(results)} | {means['dev'][0]:.3f} / {means['dev'][1]:.3f} | "
        f"{means['test'][0]:.3f} / {means['test'][1]:.3f} |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", required=True, help="folder of the results and the tables")
    parser.add_argument("--collections", nargs="+", default=list(bench.DEV_COLLECTIONS))
    args = parser.parse_args(argv)
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    results = {}
    for name in args.collections:
        path = out / f"{name}.json"
        if not path.exists():
            path.write_text(json.dumps(compare(name, out / "work")), encoding="utf-8")
        results[name] = json.loads(path.read_text(encoding="utf-8"))
        print(name, results[name], file=sys.stderr, flush=True)
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
