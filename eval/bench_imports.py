"""Benchmark: the fixed cost of importing clirkit's systems, against importing numpy and scipy.sparse (the floor
of any command that computes), each in a fresh process, the two taking turns; medians of ``--repeat`` and the
peak resident memory. Also says whether scikit-learn was imported (it should not be: ``clirkit.constraints``).

    python eval/bench_imports.py --repeat 7 [--old ../clirkit-old]     # git worktree add ../clirkit-old COMMIT

Not a test: timings vary by machine (and by load).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CODE = """import time, resource, sys
t = time.perf_counter()
import {modules}
seconds = time.perf_counter() - t
print(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, any(m.split('.')[0] == 'sklearn'
      for m in sys.modules))"""
HERE = Path(__file__).resolve().parent.parent  # this checkout
IMPORTS = {
    "numpy, scipy.sparse": "numpy, scipy.sparse",
    "clirkit.systems": "clirkit.systems",
    "clirkit.systems + a checked PSQ": "clirkit.systems\nclirkit.systems.PSQ().check_params()",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--old", metavar="CHECKOUT", help="another checkout to import clirkit from, in turns")
    args = parser.parse_args(argv)
    seen: dict[str, list] = {name: [] for name in IMPORTS}
    for _ in range(args.repeat):
        for name, modules in IMPORTS.items():
            for label, checkout in [("", HERE)] + ([(" (old)", args.old)] if args.old else []):
                # run in the checkout: `python -c` imports clirkit from the current folder first
                out = subprocess.run(
                    [sys.executable, "-c", CODE.replace("{modules}", modules)],
                    cwd=checkout,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                seconds, peak_mb, sklearn = out.split()
                seen.setdefault(name + label, []).append((float(seconds), float(peak_mb), sklearn == "True"))
    floor = statistics.median(s for s, _, _ in seen["numpy, scipy.sparse"])
    result = {}
    for name, rows in seen.items():
        median = statistics.median(s for s, _, _ in rows)
        result[name] = {
            "seconds": round(median, 3),
            "vs_numpy_scipy": round(median / floor, 2),
            "peak_mb": round(statistics.median(m for _, m, _ in rows), 1),
            "sklearn_imported": any(k for _, _, k in rows),
        }
        print(
            f"{name:34s} {median:6.3f} s  {median / floor:5.2f}x  {result[name]['peak_mb']:6.1f} MB  "
            f"scikit-learn imported: {result[name]['sklearn_imported']}"
        )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
