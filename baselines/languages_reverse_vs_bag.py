"""PSQ against MUSE's every-translation bag the other way: English queries over documents written without spaces
(``gettext-en-{zh,ja,ko,th}``, :mod:`clirkit.datasets.gettext_reverse`), as NeuCLIR and HC4 ask.

Per collection and split, the per-query AP, R@1000 and PRES@1000 of (every system a new user's command, no flag
beyond the required ones; ``MUSE`` = ``SHARED/data/muse/XX-en.txt``, the index ``clirkit index docs --lang XX``):

- ``bag``: every translation into XX of every English query word found in MUSE (read from the XX side: the
  lowercased English words between spaces and punctuation), each once per word giving it, searched by ``clirkit
  search`` on the XX index (the translations analyzed as the documents are);
- ``psq-dict``: ``clirkit ttable convert MUSE --format muse`` (XX -> en: from the documents' language) and ``clirkit
  psq --table`` it: the documents translated, their dictionary phrases as the documents hold them;
- ``psq-dict-q``: ``clirkit ttable convert MUSE --format muse --reverse`` (en -> XX) and ``clirkit psq`` with it: the
  queries translated;
- ``psq-table``: ``clirkit ttable train`` of the collection's parallel corpus from XX into English and ``clirkit psq``
  with it (the documents translated, as ``clirkit run`` fits ``kind = "psq"``);
- ``dt-dict``: ``clirkit dt`` over the en -> XX dictionary.

Each system against the bag: two-sided paired randomization test (10,000 sign flips, seed 0). Per-query values in
``OUT/NAME.SPLIT.json``, work files in ``OUT/work/NAME`` (reused; ``--rebuild`` remakes them).

    python baselines/languages_reverse_vs_bag.py -o OUT                    # dev, the four collections
    python baselines/languages_reverse_vs_bag.py -o OUT --split test
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import languages_vs_bag as forward  # noqa: E402  (baselines/ is not a package)

from clirkit import ClirkitError, datasets  # noqa: E402
from clirkit import __version__ as clirkit_version  # noqa: E402
from clirkit.formats import read_run, write_queries  # noqa: E402

COLLECTIONS = tuple(f"gettext-en-{lang}" for lang in ("zh", "ja", "ko", "th"))
SYSTEMS = ("bag", "psq-dict", "psq-dict-q", "psq-table", "dt-dict")


def english_to(path: Path) -> dict[str, list[str]]:
    """``{English word (lowercased): [translations in file order, each once]}`` of a MUSE ``XX-en`` file."""
    found: dict[str, list[str]] = {}
    for source, options in forward.read_muse(path).items():
        for english in options:
            translations = found.setdefault(english.lower(), [])
            if source not in translations:
                translations.append(source)
    return found


def bag_queries(topics: dict[str, str], dictionary: dict) -> tuple[dict[str, str], dict]:
    """``({qid: space-joined translations}`` of the queries with at least one, coverage counts)."""
    queries, found, units = {}, 0, 0
    for qid, text in topics.items():
        hits = [w for w in forward.words(text) if w in dictionary]
        found, units = found + len(hits), units + len(forward.words(text))
        if hits:
            queries[qid] = " ".join(f for e in hits for f in dictionary[e])
    return queries, {"found": found, "of": units, "no_match": len(topics) - len(queries)}


def measure(name: str, split: str, out: Path, rebuild: bool) -> dict:
    """Every system's per-query values on ``split`` of collection ``name``."""
    c = datasets.load(name)
    lang = c.target_lang
    muse = forward.SHARED / "data" / "muse" / f"{lang}-en.txt"
    work = out / "work" / name
    if rebuild and work.exists():
        shutil.rmtree(work)
    (work / "logs").mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    failures: dict[str, str] = {}

    def step(key: str, args: list, target: Path | None = None) -> str | None:
        log = work / "logs" / f"{key}.log"
        if target is not None and target.exists() and log.exists():
            return log.read_text(encoding="utf-8").split("\n", 1)[1].strip()
        t0 = time.time()
        try:
            text = forward.clirkit(args, log)
        except RuntimeError as exc:
            failures[key] = str(exc)
            forward.say(f"  FAILED: {exc}")
            return None
        seconds[key] = round(time.time() - t0, 1)
        forward.say(f"  {key}: {seconds[key]} s")
        return text

    t_all = time.time()
    forward.say(f"{name} ({split})")
    d, index = work / "d", work / f"{lang}.npz"
    step("export", ["datasets", "export", name, "-o", d, "--force"], d / "README.txt")
    step("index", ["index", d / "docs.tsv", "-o", index, "--lang", lang], index)
    to_docs, from_docs, trained = work / f"en-{lang}.npz", work / f"{lang}-en.npz", work / f"{lang}-en.trained.npz"
    converted = step("convert", ["ttable", "convert", muse, "--format", "muse", "-o", from_docs], from_docs)
    step("convert-reverse", ["ttable", "convert", muse, "--format", "muse", "--reverse", "-o", to_docs], to_docs)
    parallel = ["--source", d / f"parallel.{lang}.txt", "--target", d / "parallel.en.txt"]
    step("train", ["ttable", "train", *parallel, "--source-lang", lang, "--target-lang", "en", "-o", trained], trained)
    topics, qrels = c.queries(split), c.qrels(split)
    queries = d / f"queries.{split}.tsv"
    bag, coverage = bag_queries(topics, english_to(muse))
    write_queries(bag, work / f"bag.{split}.tsv")
    commands = {
        "bag": ["search", "--index", index, "--queries", work / f"bag.{split}.tsv"],
        "psq-dict": ["psq", "--index", index, "--queries", queries, "--table", from_docs],
        "psq-dict-q": ["psq", "--index", index, "--queries", queries, "--table", to_docs],
        "psq-table": ["psq", "--index", index, "--queries", queries, "--table", trained],
        "dt-dict": ["dt", "--index", index, "--queries", queries, "--table", to_docs],
    }
    systems, said = {}, {"bag": coverage}
    for label, args in commands.items():
        run = work / f"{label}.{split}.run.gz"
        messages = step(f"{label}.{split}", [*args, "-o", run])
        if messages is None:
            continue
        said[label] = {**said.get(label, {}), **forward.stats(messages)}
        try:
            systems[label] = forward.per_query(read_run(run), qrels)
        except ClirkitError as exc:
            failures[label] = f"evaluating {run}: {exc}"
    result = {
        "collection": name,
        "split": split,
        "lang": lang,
        "queries": len(topics),
        "systems": systems,
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "clirkit": clirkit_version,
        "said": said,
        "convert": converted,
        "failures": failures,
        "seconds": seconds,
        "total_seconds": round(time.time() - t_all, 1),
    }
    (out / f"{name}.{split}.json").write_text(json.dumps(result), encoding="utf-8")
    return result


def report(results: list[dict], split: str) -> str:
    others = [s for s in SYSTEMS if s != "bag"]
    lines = [
        f"{split} split, MAP / R@1000 (+ / -: significantly above / below the bag, paired randomization test, "
        "10,000 permutations, seed 0, p < 0.05)",
        "",
        "| collection (queries) | bag | " + " | ".join([*others, *(f"{s} - bag" for s in others)]) + " |",
        "|---|" + "---:|" * (1 + 2 * len(others)),
    ]
    for r in results:
        systems = r["systems"]
        diffs = []
        for s in others:
            if s in systems and "bag" in systems:
                diff, p = forward.test(systems, s, "bag")
                diffs.append(f"{100 * diff:+.1f} (p {p:.4f})")
            else:
                diffs.append("-")
        cells = [forward.cell(systems, s) for s in SYSTEMS]
        lines.append(f"| {r['collection']} ({r['queries']:,}) | " + " | ".join(cells + diffs) + " |")
    lines += ["", "query terms found (bag: English words in MUSE; the others: as the command said on stderr)", ""]
    for r in results:
        found = "; ".join(f"{s} {forward.share(r['said'].get(s, {}))}" for s in SYSTEMS)
        lines.append(f"- {r['collection']}: {found}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", required=True, help="folder of the results (work files in OUT/work)")
    parser.add_argument("--collections", default=",".join(COLLECTIONS), help="comma-separated names")
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--report", action="store_true", help="print the tables from OUT/*.json, computing nothing")
    parser.add_argument("--rebuild", action="store_true", help="remake the exported files, index and tables")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    forward.QUIET = args.quiet
    out, names = Path(args.output), args.collections.split(",")
    if args.report:
        found = [out / f"{n}.{args.split}.json" for n in names]
        print(report([json.loads(p.read_text(encoding="utf-8")) for p in found if p.exists()], args.split))
        return 0
    out.mkdir(parents=True, exist_ok=True)
    print(report([measure(n, args.split, out, args.rebuild) for n in names], args.split))
    return 0


if __name__ == "__main__":
    sys.exit(main())
