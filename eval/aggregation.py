"""The BoostCLIR slides' aggregation result reproduced in kind (SPEC §6, issue 6 item 4).

For one collection variant at a time: make or reuse dev and test runs of four single systems,

- DT and PSQ: the baselines' runs (``baselines/results/<name>/<variant>/{dt,psq}.{split}.run``,
  made by ``baselines/run_baselines.py``, which this script calls when they are missing);
- SCS: ``clirkit scs-train`` (SOSL, eps 0.25, a few epochs) + ``clirkit scs-score`` (whole collection);
- Boost-2g: a given model (``--boost-model``) or ``clirkit boost-train --ngram 2`` with a limited
  number of rounds, then ``clirkit boost-rank`` (whole collection);

then tune on dev, by MAP (AP averaged over the dev qrels' queries), kappa of each pair (DT+PSQ,
PSQ+Boost-2g, PSQ+SCS, DT+Boost-2g; grid step 0.05) and the weights of PSQ+Boost-2g+SCS (simplex
grid step 0.1); apply them frozen to test with :func:`clirkit.fusion.interpolate` (a system with a
negative score in its dev or test run is shifted per query, recorded); Borda
(:func:`clirkit.fusion.borda`) of the same groups for comparison. Test measures (MAP, PRES@1000,
nDCG@10, P@10, MRR over the test qrels' queries) and the paired randomization test of each
aggregate against the best single system on that measure (10,000 sign flips, seed 0).

    python eval/aggregation.py --collection nave-en-es:standard --boost-model boosting/out/boost-2g.npz
    python eval/aggregation.py --collection bible-verse-es-en:topical --boost-rounds 300
    python eval/aggregation.py --readme-only     # rebuild the README section from the saved results

Runs, models and ``results.json`` go to ``--work/<name>/<variant>/`` (default ``eval/out/aggregation``;
not committed); the Markdown section "## Rank aggregation results" at the end of eval/README.md is
rebuilt from every ``results.json`` under ``--work``. Dev tuning aligns the runs once and only
re-weights the normalized scores per grid point; the chosen point is checked to give the same
dev MAP through :func:`clirkit.fusion.interpolate`.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CLIRKIT = [sys.executable, "-m", "clirkit"]
MEASURES = ("AP", "PRES@1000", "nDCG@10", "P@10", "RR")
LABELS = {"AP": "MAP", "PRES@1000": "PRES", "RR": "MRR"}
SYSTEMS = ("DT", "PSQ", "Boost-2g", "SCS")
GROUPS = {
    "DT+PSQ": ("DT", "PSQ"),
    "PSQ+Boost-2g": ("PSQ", "Boost-2g"),
    "PSQ+SCS": ("PSQ", "SCS"),
    "DT+Boost-2g": ("DT", "Boost-2g"),
    "PSQ+Boost-2g+SCS": ("PSQ", "Boost-2g", "SCS"),
}
SECTION = "## Rank aggregation results"
NOTES = "### Reading"  # hand-written sub-section, kept when the section is rebuilt
DEPTH = 1000
SEED = 0


def say(msg: str, quiet: bool = False) -> None:
    if not quiet:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class Timer:
    """Wall seconds of named steps, in the order they ran."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def run(self, name: str, fn, *a, **kw):
        t = time.perf_counter()
        out = fn(*a, **kw)
        self.seconds[name] = round(self.seconds.get(name, 0.0) + time.perf_counter() - t, 1)
        return out


def sh(cmd: list[str], log: Path, quiet: bool) -> None:
    """Run a clirkit command; its stderr goes to ``log``; fail loudly."""
    say("$ " + " ".join(shlex.quote(c) for c in cmd), quiet)
    with open(log, "ab") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=f, cwd=REPO)
    if rc != 0:
        raise SystemExit(f"aggregation: command failed ({rc}), see {log}: {' '.join(cmd)}")


# --------------------------------------------------------------------------- runs

def make_runs(name: str, variant: str, work: Path, args, timer: Timer, commands: list[str]) -> dict:
    """{split: {system: Run}} for dev and test, making what is missing (see the module docstring)."""
    from clirkit import datasets, pipeline
    from clirkit.formats import read_run

    c = datasets.load(name, variant=variant)
    coll = ["--collection", name, "--variant", variant]
    log = work / "commands.log"
    base = Path(args.baselines) / name / variant
    if not all((base / f"{s}.{p}.run").exists() for s in ("dt", "psq") for p in ("dev", "test")):
        cmd = [sys.executable, str(REPO / "baselines" / "run_baselines.py"), "--collections",
               f"{name}:{variant}", "--out", str(args.baselines), "--quiet"]
        commands.append(" ".join(cmd[1:]))
        timer.run("DT+PSQ baselines", sh, cmd, log, args.quiet)
    else:
        commands.append(f"(DT, PSQ: reused {base.relative_to(REPO) if base.is_relative_to(REPO) else base})")

    scs = work / "scs.npz"
    earlier = _logged_seconds(work / "scs-train.log")
    if scs.exists() and earlier is not None:
        timer.seconds["SCS train (earlier, same command)"] = earlier
    thresholds = scs_thresholds(int(c.qrels("train").rels.max()))
    if not scs.exists():
        cmd = CLIRKIT + ["scs-train", *coll, "-o", str(scs), "--eps", str(args.scs_eps), "--epochs",
                         str(args.scs_epochs), "--thresholds", *thresholds, "--seed", str(SEED),
                         "--jobs", str(args.jobs), "-q"]
        timer.run("SCS train", sh, cmd, log, args.quiet)
    commands.append(f"clirkit scs-train {' '.join(coll)} -o scs.npz --eps {args.scs_eps} "
                    f"--epochs {args.scs_epochs} --thresholds {' '.join(thresholds)} --seed {SEED}")
    boost = Path(args.boost_model) if args.boost_model else work / "boost-2g.npz"
    if not boost.exists():
        cmd = CLIRKIT + ["boost-train", *coll, "--ngram", "2", "--rounds", str(args.boost_rounds),
                         "--eval-every", str(max(1, args.boost_rounds // 4)), "--max-df", "0.05",
                         "--max-positives", str(args.boost_max_positives),
                         "-o", str(boost), "--seed", str(SEED), "-q"]
        timer.run("Boost-2g train", sh, cmd, log, args.quiet)
        commands.append(" ".join(["clirkit"] + cmd[3:]).replace(str(boost), "boost-2g.npz"))
    else:
        commands.append(f"(Boost-2g: model {boost}" + (f", made by {args.boost_note}" if args.boost_note else "") + ")")

    runs: dict[str, dict] = {}
    for split in ("dev", "test"):
        excluded = c.excluded(split)
        paths = {"DT": base / f"dt.{split}.run", "PSQ": base / f"psq.{split}.run",
                 "SCS": work / f"scs.{split}.run", "Boost-2g": work / f"boost-2g.{split}.run"}
        if not paths["SCS"].exists():
            cmd = CLIRKIT + ["scs-score", str(scs), *coll, "--split", split, "-o", str(paths["SCS"]),
                             "--depth", str(DEPTH), "--tag", "SCS", "--jobs", str(args.jobs), "-q"]
            timer.run(f"SCS score {split}", sh, cmd, log, args.quiet)
        if not paths["Boost-2g"].exists():
            cmd = CLIRKIT + ["boost-rank", str(boost), *coll, "--split", split, "-o", str(paths["Boost-2g"]),
                             "--depth", str(DEPTH), "--tag", "Boost-2g", "-q"]
            timer.run(f"Boost-2g rank {split}", sh, cmd, log, args.quiet)
        runs[split] = {}
        for system in SYSTEMS:
            run = timer.run("read runs", read_run, paths[system])
            runs[split][system] = pipeline.drop_excluded(run, excluded)
    commands.append(f"clirkit scs-score scs.npz {' '.join(coll)} --split {{dev,test}} --depth {DEPTH}")
    commands.append(f"clirkit boost-rank boost-2g.npz {' '.join(coll)} --split {{dev,test}} --depth {DEPTH}")
    return runs


def scs_thresholds(max_grade: int) -> list[str]:
    """SOSL inner thresholds: the paper's (0.2, 0.7) for grades 0-2; for more grades, evenly spaced
    from 0.2 to 0.8 (one per grade above 0, minus one); 0.5 for binary judgments."""
    if max_grade == 2:
        return ["0.2", "0.7"]
    if max_grade <= 1:
        return ["0.5"] if max_grade == 1 else []
    return [f"{x:g}" for x in np.round(np.linspace(0.2, 0.8, max_grade), 4)]


def _logged_seconds(log: Path) -> float | None:
    """The ``real XmY.Zs`` wall time that bash's ``time`` appended to ``log``, if any."""
    import re

    if not log.exists():
        return None
    m = re.findall(r"^real\s+(\d+)m([\d.]+)s", log.read_text(errors="replace"), flags=re.M)
    return round(int(m[-1][0]) * 60 + float(m[-1][1]), 1) if m else None


def transform_of(dev, test) -> str:
    """``shift`` when the system's dev or test run has a negative score, else ``none``."""
    lows = [r.scores.min() for r in (dev, test) if len(r)]
    return "shift" if lows and min(lows) < 0 else "none"


# --------------------------------------------------------------------------- dev tuning

def simplex_grid(n: int, step: float) -> np.ndarray:
    """All weight vectors of ``n`` entries on multiples of ``step`` summing to 1 (lexicographic)."""
    k = int(round(1 / step))
    rows = [c for c in itertools.product(range(k + 1), repeat=n) if sum(c) == k]
    return np.round(np.array(rows, dtype=np.float64) / k, 10)


def tune(runs: list, transforms: list[str], qrels, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dev MAP of ``interpolate(runs, w, transform=transforms)`` for every row ``w`` of ``grid``.

    Aligns the runs once (``clirkit.fusion``'s own alignment and transforms) and re-weights the
    per-query sum-normalized scores per grid point: the same numbers as calling
    :func:`clirkit.fusion.interpolate` each time, several times faster.
    """
    from clirkit import fusion
    from clirkit.metrics import evaluate

    al = fusion._align(runs, DEPTH)
    normed = []
    for i, run in enumerate(al.runs):
        t = fusion.transform_scores(run, transforms[i])
        denom = np.bincount(al.row_query[i], weights=t, minlength=al.n_queries)[al.row_query[i]]
        n = np.zeros_like(t)
        np.divide(t, denom, out=n, where=denom > 0)
        normed.append(np.bincount(al.pair[i], weights=n, minlength=len(al.pair_q)))
    values = np.empty(len(grid))
    for g, w in enumerate(grid):
        fused = np.zeros(len(al.pair_q))
        for i, n in enumerate(normed):
            fused += w[i] * n
        values[g] = evaluate(al.ranked(fused, DEPTH, "tune"), qrels, ["AP"], average="qrels").mean()["AP"]
    return grid, values


# --------------------------------------------------------------------------- one collection

def run_collection(spec: str, args) -> dict:
    from clirkit import datasets, fusion
    from clirkit.metrics import evaluate
    from clirkit.significance import randomization_test

    name, _, variant = spec.partition(":")
    variant = variant or datasets.variants(name)[0]
    work = Path(args.work) / name / variant
    work.mkdir(parents=True, exist_ok=True)
    timer, commands = Timer(), []
    say(f"{name} ({variant}): runs", args.quiet)
    runs = make_runs(name, variant, work, args, timer, commands)
    c = datasets.load(name, variant=variant)
    qrels = {s: c.qrels(s) for s in ("dev", "test")}
    transforms = {s: transform_of(runs["dev"][s], runs["test"][s]) for s in SYSTEMS}

    dev_single = {s: evaluate(runs["dev"][s], qrels["dev"], ["AP"], average="qrels").mean()["AP"] for s in SYSTEMS}
    chosen = {}
    for group, members in GROUPS.items():
        say(f"tuning {group} on dev", args.quiet)
        t0 = time.perf_counter()
        if len(members) == 2:
            grid = np.stack([fusion.kappa_grid(args.kappa_step), 1 - fusion.kappa_grid(args.kappa_step)], axis=1)
        else:
            grid = simplex_grid(len(members), args.simplex_step)
        tf = [transforms[m] for m in members]
        grid, values = tune([runs["dev"][m] for m in members], tf, qrels["dev"], grid)
        best = int(np.argmax(values))  # first maximum: smallest kappa / lexicographically first weights
        w = grid[best]
        check = fusion.interpolate([runs["dev"][m] for m in members], list(w), transform=tf, depth=DEPTH)
        check_ap = evaluate(check, qrels["dev"], ["AP"], average="qrels").mean()["AP"]
        if abs(check_ap - values[best]) > 1e-9:
            raise SystemExit(f"aggregation: fast tuning ({values[best]}) disagrees with fusion.interpolate "
                             f"({check_ap}) for {group} at {w}")
        timer.seconds[f"tune {group}"] = round(time.perf_counter() - t0, 1)
        chosen[group] = {"members": list(members), "weights": [float(x) for x in w], "transforms": tf,
                         "dev_MAP": float(values[best]), "grid_points": len(grid),
                         "sweep": [[float(x) for x in g] + [float(v)] for g, v in zip(grid, values)]}
        say(f"{group}: weights {w.tolist()} dev MAP {values[best]:.4f}", args.quiet)

    say("test: aggregating with frozen weights, Borda, evaluation", args.quiet)
    test_runs = dict(runs["test"])
    for group, ch in chosen.items():
        members = [runs["test"][m] for m in ch["members"]]
        test_runs[group] = timer.run("test aggregation (interp)", fusion.interpolate, members, ch["weights"],
                                     transform=ch["transforms"], depth=DEPTH, tag=group)
        test_runs[f"{group} (Borda)"] = timer.run("test aggregation (Borda)", fusion.borda, members,
                                                  depth=DEPTH, tag=group + " Borda")
    t0 = time.perf_counter()
    ev = {k: evaluate(r, qrels["test"], MEASURES, average="qrels") for k, r in test_runs.items()}
    best = {m: max(SYSTEMS, key=lambda s: ev[s].mean()[m]) for m in MEASURES}
    rows = {}
    for k, e in ev.items():
        row = {"mean": e.mean(), "queries": e.n_queries, "p": {}}
        if k not in SYSTEMS:
            for m in MEASURES:
                row["p"][m] = randomization_test(ev[best[m]].column(m), e.column(m), seed=SEED).p_value
        rows[k] = row
    timer.seconds["evaluation + tests"] = round(time.perf_counter() - t0, 1)
    result = {
        "collection": name, "variant": variant, "source_lang": c.source_lang, "target_lang": c.target_lang,
        "dev_queries": len(c.queries("dev")), "test_queries": len(c.queries("test")),
        "transforms": transforms, "dev_MAP_single": dev_single, "chosen": chosen, "best_single": best,
        "test": rows, "seconds": timer.seconds, "commands": commands,
        "settings": {"kappa_step": args.kappa_step, "simplex_step": args.simplex_step, "scs_eps": args.scs_eps,
                     "scs_epochs": args.scs_epochs, "boost_model": args.boost_model,
                     "boost_rounds": None if args.boost_model else args.boost_rounds,
                     "boost_max_positives": None if args.boost_model else args.boost_max_positives},
        "load_average": [round(x, 2) for x in os.getloadavg()], "finished": time.strftime("%Y-%m-%d %H:%M"),
        "command": args.command,
    }
    with open(work / "results.json", "w") as f:
        json.dump(result, f, indent=1)
    return result


# --------------------------------------------------------------------------- Markdown

def fmt_weights(ch: dict) -> str:
    if len(ch["weights"]) == 2:
        return f"kappa {ch['weights'][0]:g}"
    return "w " + " / ".join(f"{w:g}" for w in ch["weights"])


def summary(r: dict) -> list[str]:
    """One line per interpolated aggregate: its MAP and PRES change over the best single system."""
    out = []
    for k in r["chosen"]:
        row = r["test"][k]
        parts = []
        for m in ("AP", "PRES@1000"):
            best = r["best_single"][m]
            d = 100 * (row["mean"][m] - r["test"][best]["mean"][m])
            parts.append(f"{LABELS[m]} {d:+.2f} points over {best} (p {row['p'][m]:.4f})")
        out.append(f"- {k} ({fmt_weights(r['chosen'][k])}): " + ", ".join(parts))
    return out


def markdown_one(r: dict) -> list[str]:
    name, variant = r["collection"], r["variant"]
    q = next(iter(r["test"].values()))["queries"]
    lines = [f"### {name} ({variant}): {r['source_lang']} queries -> {r['target_lang']} documents, "
             f"test {q} queries", ""]
    head = ["system", "kappa / weights (dev)", "dev MAP"] + [LABELS.get(m, m) for m in MEASURES] + \
        ["p MAP", "p PRES", "queries"]
    lines += ["| " + " | ".join(head) + " |", "|---|---|---:|" + "---:|" * (len(MEASURES) + 3)]
    for k, row in r["test"].items():
        cells = []
        for m in MEASURES:
            v = f"{row['mean'][m]:.4f}"
            if k in SYSTEMS and r["best_single"][m] == k:
                v = f"**{v}**"
            if row["p"] and row["p"][m] < 0.05:
                v += "*"
            cells.append(v)
        if k in SYSTEMS:
            w, dev = f"transform {r['transforms'][k]}", f"{r['dev_MAP_single'][k]:.4f}"
        elif k.endswith("(Borda)"):
            w, dev = "Borda, K = 1000, equal weights", ""
        else:
            ch = r["chosen"][k]
            w = fmt_weights(ch) + ("" if set(ch["transforms"]) == {"none"} else
                                   " (" + ", ".join(f"{m} {t}" for m, t in zip(ch["members"], ch["transforms"])
                                                    if t != "none") + ")")
            dev = f"{ch['dev_MAP']:.4f}"
        ps = [f"{row['p'][m]:.4f}" if row["p"] else "" for m in ("AP", "PRES@1000")]
        lines.append(f"| {k} | {w} | {dev} | " + " | ".join(cells) + " | " + " | ".join(ps) + f" | {row['queries']} |")
    lines += [""] + summary(r) + ["", "Bold: best single system on that measure; `*`: the aggregate differs from it at p < 0.05 "
              "(two-sided paired randomization test, 10,000 sign flips, seed 0; `p MAP` / `p PRES` are those "
              "p-values). Means over the test qrels' queries (a query without results counts 0).", ""]
    lines += ["Made by `" + r["command"] + "`; its steps (runs and models in the work folder):", "", "```"] \
        + r["commands"] + ["```", ""]
    secs = r["seconds"]
    lines += ["Wall time of each step (s, 2 shared cores, load average at the end "
              + ", ".join(f"{x:g}" for x in r["load_average"]) + "): "
              + "; ".join(f"{k} {v:g}" for k, v in secs.items()) + ".", ""]
    return lines


def markdown(results: list[dict]) -> str:
    lines = [SECTION, "",
             "The BoostCLIR slides' aggregation table reproduced in kind (issue 6 item 4, SPEC §6): DT and PSQ "
             "from `baselines/`, Boost-2g (`clirkit.boost`), SCS (`clirkit.scs`), kappa-interpolation of "
             "per-query sum-normalized scores with kappa (pairs, grid 0.05) or weights (three-way, simplex grid "
             "0.1) chosen on dev by MAP and frozen for test; Borda for comparison. Rebuild this section "
             "from saved results with `python eval/aggregation.py --readme-only`.", ""]
    for r in results:
        lines += markdown_one(r)
    return "\n".join(lines).rstrip() + "\n"


def write_section(readme: Path, text: str) -> None:
    """Replace the section (from its heading to the next ``## `` heading or the end), or append it.

    A hand-written ``### Reading`` sub-section at the end of the old section is kept (after the new text).
    """
    from clirkit.fileio import atomic_writer

    old = readme.read_text(encoding="utf-8") if readme.exists() else ""
    start = old.find("\n" + SECTION + "\n")
    if start < 0 and old.startswith(SECTION + "\n"):
        start = -1
        before, rest = "", old
    elif start < 0:
        before, rest = old.rstrip("\n") + "\n\n", ""
    else:
        before, rest = old[:start + 1], old[start + 1:]
    after, notes = "", ""
    if rest:
        nxt = rest.find("\n## ", len(SECTION))
        after = rest[nxt + 1:] if nxt >= 0 else ""
        body = rest[:nxt + 1] if nxt >= 0 else rest
        at = body.find("\n" + NOTES + "\n")
        notes = body[at + 1:].rstrip("\n") + "\n" if at >= 0 else ""
    with atomic_writer(readme) as f:
        f.write(before + text + ("\n" + notes if notes else "") + ("\n" + after if after else ""))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--collection", nargs="+", default=["nave-en-es:standard"], metavar="NAME[:VARIANT]")
    p.add_argument("--work", default=str(HERE / "out" / "aggregation"),
                   help="runs, models and results.json per collection")
    p.add_argument("--baselines", default=str(REPO / "baselines" / "results"), help="DT/PSQ runs folder")
    p.add_argument("--boost-model", default=None, help="an existing Boost-2g model (.npz) to rank with")
    p.add_argument("--boost-note", default="", help="how --boost-model was made (printed in the report)")
    p.add_argument("--boost-rounds", type=int, default=300, help="rounds when training Boost-2g here")
    p.add_argument("--boost-max-positives", type=int, default=5,
                   help="at most this many d+ per training query when training Boost-2g here (memory)")
    p.add_argument("--scs-epochs", type=int, default=5)
    p.add_argument("--scs-eps", type=float, default=0.25)
    p.add_argument("--kappa-step", type=float, default=0.05)
    p.add_argument("--simplex-step", type=float, default=0.1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--readme", default=str(HERE / "README.md"))
    p.add_argument("--readme-only", action="store_true", help="only rebuild the README section")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    args.command = "python eval/aggregation.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    if not args.readme_only:
        for spec in args.collection:
            run_collection(spec, args)
    found = sorted(Path(args.work).glob("*/*/results.json"))
    order = {"nave-en-es": 0, "bible-verse-es-en": 1, "multi30k-de-en": 2}
    results = [json.loads(f.read_text()) for f in found]
    results.sort(key=lambda r: (order.get(r["collection"], 9), r["variant"]))
    write_section(Path(args.readme), markdown(results))
    say(f"wrote {args.readme} ({len(results)} collection variants)", args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
