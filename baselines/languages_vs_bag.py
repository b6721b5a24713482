"""PSQ against MUSE's every-translation bag on the collections whose queries are written without spaces (zh, ja, ko,
th) or in other scripts (ru, el, ar, fa, hi, vi): the measurement of the issue about languages without spaces.

Per collection (default: every bundled ``gettext-XX-en`` and ``debian-desc-XX-en`` of those languages that
``clirkit datasets list`` names, and their other variants as ``NAME:VARIANT``, e.g. ``gettext-zh-en:traditional``;
not ``english-queries``) and split, the per-query AP, R@1000 and PRES@1000 of:

- ``bag`` (the issue's reference): the MUSE dictionary ``SHARED/data/muse/XX-en.txt`` (``SHARED``: $CLIRKIT_SHARED,
  else ``../shared`` beside the repository). Query text is cut into dictionary words: runs of Han, kana, Hangul
  (each eojeol) and Thai by greedy longest match from the left against the dictionary's source words (a character
  starting no dictionary word is skipped), other text into lowercased words between spaces and punctuation. Every
  English translation of every word found is its own BM25 query term (repeated once per word giving it), searched
  by ``clirkit search`` on the English index of ``clirkit index --lang en`` (default analysis), top 1000;
- ``psq-dict``: ``clirkit ttable convert XX-en.txt --format muse --source-lang XX --target-lang en`` and
  ``clirkit psq --index en.npz --queries Q --table XX-en.npz``, no other flag (a new user's PSQ over a dictionary);
- ``psq-table``: ``clirkit ttable train`` of the collection's parallel corpus from English into XX, and ``clirkit
  psq`` with that table, no other flag (the documents translated, as ``clirkit run`` fits ``kind = "psq"``; the
  forward table is not trained: PSQ translating the documents does not read it);
- ``dt-dict``: ``clirkit dt`` over the converted dictionary, no other flag.

Each system is tested against the bag with a two-sided paired randomization test (10,000 sign flips, seed 0,
``clirkit.significance.paired_test``; + / -: significantly above / below the bag, p < 0.05). The share of query
units found (the bag's words, PSQ's analyzed query terms as ``clirkit psq`` says on stderr) and the queries left
without a match are reported too, with what ``ttable convert`` said. Only the ``clirkit`` command and clirkit's
public API are used, so the numbers follow changes to clirkit's analysis and translation.

Per-query values in ``OUT/NAME.SPLIT.json``; the exported collection, index, tables, bag queries, runs and every
command's stderr in ``OUT/work/NAME`` (kept: a rerun reuses the index and tables, ``--rebuild`` remakes them).

    python baselines/languages_vs_bag.py -o OUT                                  # dev, every collection
    python baselines/languages_vs_bag.py -o OUT --collections gettext-zh-en,gettext-ja-en --split test
    python baselines/languages_vs_bag.py -o OUT --report                         # tables from OUT/*.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np

from clirkit import ClirkitError, datasets
from clirkit import __version__ as clirkit_version
from clirkit.formats import read_run, write_queries
from clirkit.metrics import evaluate
from clirkit.significance import paired_test

LANGS = ("zh", "ja", "ko", "th", "ru", "el", "ar", "fa", "hi", "vi")
FAMILIES = ("gettext", "debian-desc")
MEASURES = ["AP", "R@1000", "PRES@1000"]
SYSTEMS = ("bag", "psq-dict", "psq-table", "dt-dict")
SHARED = Path(os.environ.get("CLIRKIT_SHARED") or Path(__file__).resolve().parents[2] / "shared")
# scripts written without spaces between words (and Hangul, whose eojeol often begin with a dictionary word)
UNSPACED = re.compile(
    "([\u0e00-\u0e7f\u1100-\u11ff\u3005\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ffff]+)"
)
FOUND = re.compile(r"(\d+) of (\d+) query terms (?:found|translated)")
EMPTY = re.compile(r"(\d+) of (\d+) queries matched no document")
QUIET = False


def say(text: str) -> None:
    if not QUIET:
        print(text, file=sys.stderr, flush=True)


def default_collections() -> list[str]:
    """The bundled collections of :data:`LANGS`, each variant but the first (and English queries) as NAME:VARIANT."""
    names = [n for n in datasets.names() if re.fullmatch(rf"({'|'.join(FAMILIES)})-({'|'.join(LANGS)})-en", n)]
    return [f"{n}:{v}" if k else n for n in names for k, v in enumerate(datasets.variants(n)) if v != "english-queries"]


# the bag ----------------------------------------------------------------------------------------------------


def read_muse(path: Path) -> dict[str, list[str]]:
    """``{source word (lowercased): [English translations in file order, each once]}`` of a MUSE file."""
    found: dict[str, list[str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise SystemExit(f"{path}:{number}: expected 'SOURCE TARGET', got {line!r}")
        options = found.setdefault(fields[0].lower(), [])
        if fields[1] not in options:
            options.append(fields[1])
    return found


def words(text: str) -> list[str]:
    """The lowercased runs of letters, marks and digits of ``text`` (spaces, punctuation, symbols split them)."""
    out, current = [], []
    for ch in text.lower():
        if unicodedata.category(ch)[0] in "PSZC":
            if current:
                out.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        out.append("".join(current))
    return out


def segment(text: str, dictionary: dict, longest: int) -> tuple[list[str], int]:
    """(the dictionary words of ``text``, the number of units not found: skipped characters of the scripts
    without spaces, other words absent from the dictionary)."""
    found, missed = [], 0
    for word in words(text):
        for k, run in enumerate(UNSPACED.split(word)):
            if not run:
                continue
            if k % 2 == 0:  # text outside the scripts without spaces: a whole word
                if run in dictionary:
                    found.append(run)
                else:
                    missed += 1
                continue
            i = 0
            while i < len(run):
                for n in range(min(longest, len(run) - i), 0, -1):
                    if run[i : i + n] in dictionary:
                        found.append(run[i : i + n])
                        i += n
                        break
                else:
                    missed += 1
                    i += 1
    return found, missed


def bag_queries(topics: dict[str, str], dictionary: dict) -> tuple[dict[str, str], dict]:
    """``({qid: space-joined translations}`` of the queries with at least one, coverage counts)."""
    longest = max(map(len, dictionary))
    queries, found, units = {}, 0, 0
    for qid, text in topics.items():
        hits, missed = segment(text, dictionary, longest)
        found, units = found + len(hits), units + len(hits) + missed
        if hits:
            queries[qid] = " ".join(e for f in hits for e in dictionary[f])
    return queries, {"found": found, "of": units, "no_match": len(topics) - len(queries)}


# the command ------------------------------------------------------------------------------------------------


def clirkit(args: list[str], log: Path) -> str:
    """Run ``clirkit ARGS`` (this interpreter's), its stderr without progress bars kept in ``log`` and returned;
    RuntimeError with the command and its messages when it fails."""
    command = [sys.executable, "-m", "clirkit", *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True)
    lines = [s.rstrip() for s in re.split(r"[\r\n]", done.stderr) if s.strip() and "%|" not in s]
    text = "\n".join(lines)
    log.write_text(f"$ clirkit {' '.join(map(str, args))}\n{text}\n", encoding="utf-8")
    if done.returncode:
        raise RuntimeError(f"clirkit {' '.join(map(str, args))} (exit {done.returncode}):\n{text}")
    return text


def stats(messages: str) -> dict:
    """What ``clirkit psq`` / ``dt`` said: query terms found in the table, queries that matched no document."""
    found, empty = FOUND.search(messages), EMPTY.search(messages)
    out = {"found": int(found[1]), "of": int(found[2])} if found else {}
    out["no_document"] = int(empty[1]) if empty else 0
    return out


def per_query(run, qrels) -> dict[str, dict[str, float]]:
    """``{measure: {qid: value}}`` over every query of the qrels (a query the run lacks scores 0)."""
    table = evaluate(run, qrels, MEASURES)
    return {m: dict(zip(table.qids.tolist(), table.column(m).tolist())) for m in MEASURES}


def measure(name: str, split: str, out: Path, rebuild: bool) -> dict | None:
    """Every system's per-query values on ``split`` of collection ``name`` (None when its language has no MUSE)."""
    base, _, variant = name.partition(":")
    c = datasets.load(base, variant=variant or None)
    lang = c.source_lang
    muse = SHARED / "data" / "muse" / f"{lang}-en.txt"
    if c.target_lang != "en" or not muse.exists():
        say(f"{name}: skipped: no MUSE dictionary {muse}" if c.target_lang == "en" else f"{name}: not into English")
        return None
    if split not in c.splits:
        say(f"{name}: skipped: no {split} split ({', '.join(c.splits)})")
        return None
    if any(c.excluded(split).values()):
        say(f"{name}: warning: the collection excludes documents per query; they are not removed here")
    work = out / "work" / name
    if rebuild and work.exists():
        shutil.rmtree(work)
    (work / "logs").mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    failures: dict[str, str] = {}

    def step(key: str, args: list, target: Path | None = None) -> str | None:
        log = work / "logs" / f"{key}.log"
        if target is not None and target.exists() and log.exists():
            return log.read_text(encoding="utf-8").split("\n", 1)[1].strip()  # made before: its messages
        t0 = time.time()
        try:
            text = clirkit(args, log)
        except RuntimeError as exc:
            failures[key] = str(exc)
            say(f"  FAILED: {exc}")
            return None
        seconds[key] = round(time.time() - t0, 1)
        say(f"  {key}: {seconds[key]} s")
        return text

    t_all = time.time()
    say(f"{name} ({split})")
    d = work / "d"
    chosen = ["--variant", variant] if variant else []
    step("export", ["datasets", "export", base, *chosen, "-o", d, "--force"], d / "README.txt")
    step("index", ["index", d / "docs.tsv", "-o", work / "en.npz", "--lang", "en"], work / "en.npz")
    converted = step(
        "convert",
        [
            "ttable",
            "convert",
            muse,
            "--format",
            "muse",
            "--source-lang",
            lang,
            "--target-lang",
            "en",
            "-o",
            work / f"{lang}-en.npz",
        ],
        work / f"{lang}-en.npz",
    )
    reverse = work / f"en-{lang}.npz"
    step(
        "train",
        [
            "ttable",
            "train",
            "--source",
            d / "parallel.en.txt",
            "--target",
            d / f"parallel.{lang}.txt",
            "--source-lang",
            "en",
            "--target-lang",
            lang,
            "-o",
            reverse,
        ],
        reverse,
    )
    topics, qrels = c.queries(split), c.qrels(split)
    queries = d / f"queries.{split}.tsv"
    t0 = time.time()
    bag, coverage = bag_queries(topics, read_muse(muse))
    write_queries(bag, work / f"bag.{split}.tsv")
    seconds["bag-queries"] = round(time.time() - t0, 1)
    commands = {
        "bag": ["search", "--index", work / "en.npz", "--queries", work / f"bag.{split}.tsv"],
        "psq-dict": ["psq", "--index", work / "en.npz", "--queries", queries, "--table", work / f"{lang}-en.npz"],
        "psq-table": ["psq", "--index", work / "en.npz", "--queries", queries, "--table", reverse],
        "dt-dict": ["dt", "--index", work / "en.npz", "--queries", queries, "--table", work / f"{lang}-en.npz"],
    }
    systems, said = {}, {"bag": coverage}
    for label, args in commands.items():
        run = work / f"{label}.{split}.run.gz"
        messages = step(f"{label}.{split}", [*args, "-o", run])
        if messages is None:
            continue
        said[label] = {**said.get(label, {}), **stats(messages)}
        try:
            systems[label] = per_query(read_run(run), qrels)
        except ClirkitError as exc:  # e.g. an empty run
            failures[label] = f"evaluating {run}: {exc}"
            say(f"  FAILED: {failures[label]}")
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
    say(f"{name} ({split}): {result['total_seconds']} s")
    return result


# report -----------------------------------------------------------------------------------------------------


def mean(values: dict[str, float]) -> float:
    return float(np.mean(list(values.values())))


def test(systems: dict, a: str, b: str, m: str = "AP") -> tuple[float, float]:
    """(mean of a - mean of b, the paired randomization test's p) over the queries of the qrels."""
    x, y = systems[a][m], systems[b][m]
    qids = sorted(y)
    if set(x) != set(y):
        raise SystemExit(f"{a} and {b} were measured on different queries")
    return mean(x) - mean(y), paired_test(
        [x[q] for q in qids], [y[q] for q in qids], permutations=10_000, seed=0
    ).p_value


def cell(systems: dict, key: str) -> str:
    if key not in systems:
        return "failed"
    parts = []
    for m in ("AP", "R@1000"):
        mark = ""
        if key != "bag" and "bag" in systems:
            diff, p = test(systems, key, "bag", m)
            mark = ("+" if diff > 0 else "-") if p < 0.05 else ""
        parts.append(f"{mean(systems[key][m]):.3f}{mark}")
    return " / ".join(parts)


def share(said: dict) -> str:
    if "of" not in said:
        return "-"
    return f"{said['found']:,} of {said['of']:,} ({100 * said['found'] / max(said['of'], 1):.1f}%)"


def report(results: list[dict], split: str) -> str:
    results = [r for r in results if r["split"] == split]
    if not results:
        return f"(no results for the {split} split)"
    others = [s for s in SYSTEMS if s != "bag"]
    lines = [
        f"{split} split, MAP / R@1000 (+ / -: significantly above / below the bag, paired randomization test, "
        "10,000 permutations, seed 0, p < 0.05)",
        "",
        "| collection (queries) | bag | "
        + " | ".join(others)
        + " | "
        + " | ".join(f"{s} - bag, MAP points (p)" for s in others)
        + " |",
        "|---|" + "---:|" * 7,
    ]
    for r in results:
        systems = r["systems"]
        diffs = []
        for s in others:
            if s in systems and "bag" in systems:
                d, p = test(systems, s, "bag")
                diffs.append(f"{100 * d:+.1f} (p {p:.4f})")
            else:
                diffs.append("-")
        lines.append(
            f"| {r['collection']} ({r['queries']:,}) | {cell(systems, 'bag')} | "
            + " | ".join(cell(systems, s) for s in others)
            + " | "
            + " | ".join(diffs)
            + " |"
        )
    lines += [
        "",
        f"{split} split, query units found (bag: its dictionary words against words and skipped "
        "characters; psq/dt: PSQ's analyzed query terms found in the table, from stderr), and queries "
        "without a match (bag: no word found; psq/dt: matched no document); PRES@1000; seconds",
        "",
        "| collection | bag found | bag no word / no doc | psq-dict found | psq-dict no doc | psq-table found | "
        "psq-table no doc | PRES@1000 bag / psq-dict / psq-table / dt-dict | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        said, systems = r["said"], r["systems"]
        pres = " / ".join(f"{mean(systems[s]['PRES@1000']):.3f}" if s in systems else "-" for s in SYSTEMS)
        no_doc = {s: f"{said[s]['no_document']:,}" if "no_document" in said.get(s, {}) else "-" for s in SYSTEMS}
        cells = [
            r["collection"],
            share(said.get("bag", {})),
            f"{said['bag']['no_match']:,} / {no_doc['bag']}",
            share(said.get("psq-dict", {})),
            no_doc["psq-dict"],
            share(said.get("psq-table", {})),
            no_doc["psq-table"],
            pres,
            f"{r['total_seconds']:.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    for r in results:
        said_convert = (r["convert"] or "(nothing)").splitlines()
        stamp = f"measured {r.get('when', '?')}, clirkit {r.get('clirkit', '?')}"
        lines += ["", f"{r['collection']} ({stamp}): `ttable convert` said:", "", *(f"    {x}" for x in said_convert)]
        for key, message in r["failures"].items():
            lines += ["", f"{r['collection']}: {key} FAILED:", "", *(f"    {x}" for x in message.splitlines())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    global QUIET
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", required=True, help="folder of the results (work files in OUT/work)")
    parser.add_argument(
        "--collections",
        help="comma-separated names, NAME:VARIANT for a variant (default: every "
        f"bundled gettext-XX-en and debian-desc-XX-en, XX in {','.join(LANGS)}"
        ", and their variants but english-queries)",
    )
    parser.add_argument("--split", default="dev", choices=("dev", "test"), help="the queries (default: dev)")
    parser.add_argument("--report", action="store_true", help="print the tables from OUT/*.json, computing nothing")
    parser.add_argument("--rebuild", action="store_true", help="remake the exported files, index and tables")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    QUIET = args.quiet
    out = Path(args.output)
    names = args.collections.split(",") if args.collections else default_collections()
    if args.report:
        found = [out / f"{n}.{args.split}.json" for n in names]  # then any other collection measured there
        found += [p for p in sorted(out.glob(f"*.{args.split}.json")) if not args.collections and p not in found]
        print(report([json.loads(p.read_text(encoding="utf-8")) for p in found if p.exists()], args.split))
        return 0
    unknown = [
        n
        for n in names
        if n.partition(":")[0] not in datasets.names()
        or n.partition(":")[2] not in ("", *datasets.variants(n.partition(":")[0]))
    ]
    if unknown:
        parser.error(f"unknown collections {', '.join(unknown)} (clirkit datasets list)")
    out.mkdir(parents=True, exist_ok=True)
    results = [r for n in names if (r := measure(n, args.split, out, args.rebuild)) is not None]
    print(report(results, args.split))
    return 0


if __name__ == "__main__":
    sys.exit(main())
