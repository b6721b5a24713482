"""The size of `clirkit demo`'s folder, by kind of file, against issue 28's bar (100 MB).

    python eval/demo_size.py --make clirkit-demo     # runs `clirkit demo -o clirkit-demo` first (about 5 minutes)
    python eval/demo_size.py clirkit-demo            # a folder the demo made

Prints the bytes of each kind (runs, tables, models, index, report and figures, the rest), the total in MB
(10^6 bytes) and MiB, as `du -sb` counts them (file sizes, no blocks), and whether the total is within the bar.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

BAR_MB = 100.0


def kind(path: Path, folder: Path) -> str:
    """The kind of a file of the demo's folder, by where it is and its name."""
    rel = path.relative_to(folder)
    if rel.parts[0] == "runs":
        return "runs"
    if rel.parts[0] == "models":
        return "models"
    if rel.name.startswith("table"):
        return "tables"
    if rel.name.startswith("index"):
        return "index"
    if rel.suffix in (".png", ".md", ".txt"):
        return "report and figures"
    return "other"


def sizes(folder: Path) -> dict[str, int]:
    """Bytes of each kind of file under ``folder``."""
    out: dict[str, int] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = kind(path, folder)
        out[name] = out.get(name, 0) + path.stat().st_size
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("folder", type=Path, help="the demo's folder")
    p.add_argument("--make", action="store_true", help="run `clirkit demo -o FOLDER --quiet` first")
    args = p.parse_args()
    if args.make:
        subprocess.run(
            [sys.executable, "-m", "clirkit", "demo", "-o", str(args.folder), "--quiet"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    if not args.folder.is_dir():
        sys.exit(f"{args.folder}: no such folder (run `clirkit demo -o {args.folder}`, or give --make)")
    by_kind = sizes(args.folder)
    total = sum(by_kind.values())
    for name, size in sorted(by_kind.items(), key=lambda item: -item[1]):
        print(f"{name:20s} {size / 1e6:8.1f} MB")
    verdict = "within" if total / 1e6 <= BAR_MB else "OVER"
    print(f"{'total':20s} {total / 1e6:8.1f} MB ({total / 2**20:.1f} MiB): {verdict} the {BAR_MB:.0f} MB bar")


if __name__ == "__main__":
    main()
