"""Recipe: the PSQ base runs that boosting from a base ranker starts from (train, dev and test splits).

    python boosting/base_runs.py --collection nave-en-es
    python boosting/base_runs.py --collection bible-verse-es-en --variant standard

Trains the IBM Model 1 table on the collection's parallel corpus, indexes the documents and runs
PSQ (``clirkit.pipeline.psq_run``: the SPEC's pruning, the 100 most frequent index terms removed
from the options, BM25 k1 = 1.2, b = 0.75, depth 1,000) over the queries of every split. Nothing is
removed from the runs here (the topical variant's excluded documents are removed where a run is
scored). Writes ``boosting/out/<collection>/<variant>/psq.<split>.run.gz`` (not committed: large) and
prints the time of each step and the peak RSS.
"""
from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

from clirkit import datasets, pipeline
from clirkit.formats import write_run

HERE = Path(__file__).resolve().parent


def base_run_path(collection: str, variant: str, split: str, system: str = "psq") -> Path:
    """Where this recipe writes the ``system`` run of ``split``."""
    return HERE / "out" / collection / variant / f"{system}.{split}.run.gz"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--collection", default="nave-en-es")
    p.add_argument("--variant", default="standard")
    p.add_argument("--splits", nargs="+", default=["train", "dev", "test"])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--quiet", action="store_true")
    a = p.parse_args(argv)
    c = datasets.load(a.collection, variant=a.variant)
    steps = pipeline.Steps()
    with steps.time("table"):
        source, target = c.parallel()
        s_tok = pipeline.tokenize(source, c.source_lang, quiet=a.quiet, jobs=a.jobs, desc="tokenizing source")
        t_tok = pipeline.tokenize(target, c.target_lang, quiet=a.quiet, jobs=a.jobs, desc="tokenizing target")
        table = pipeline.train_table(s_tok, t_tok, quiet=a.quiet)
        analyzer = pipeline.query_analyzer(c.source_lang, s_tok)
    with steps.time("index"):
        index = pipeline.index_documents(*c.documents(), c.target_lang, quiet=a.quiet, jobs=a.jobs)
    for split in a.splits:
        with steps.time(f"PSQ {split}"):
            run = pipeline.psq_run(index, table, c.queries(split), analyzer, quiet=a.quiet)
            path = base_run_path(a.collection, a.variant, split)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_run(run, path)
    print(", ".join(f"{k} {v:.1f} s" for k, v in steps.seconds.items()),
          f"; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
