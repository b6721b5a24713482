"""Recipe: the PSQ base runs that boosting from a base ranker starts from (train, dev and test splits).

    python boosting/base_runs.py --collection nave-en-es
    python boosting/base_runs.py --collection bible-verse-es-en --variant standard

Trains the IBM Model 1 table on the collection's parallel corpus, indexes the documents and runs
PSQ (``clirkit.pipeline.psq_run``: the SPEC's pruning, the 100 most frequent index terms removed
from the options, BM25 k1 = 1.2, b = 0.75, depth 1,000) over the queries of every split, without
the variant's excluded documents (the topical task's translation mates). Writes
``boosting/out/<collection>/<variant>/psq.<split>.run.gz`` (not committed: large; the base runs of
``clirkit boost-train --base-run``) and prints the time of each step and the peak RSS.
``boosting/experiment.py`` uses :class:`Baseline` in-process.
"""
from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

from clirkit import datasets, pipeline
from clirkit.formats import write_run

HERE = Path(__file__).resolve().parent


class Baseline:
    """The IBM Model 1 table, the query analyzer and the index of a collection, and PSQ over them
    (``clirkit.pipeline``'s steps)."""

    def __init__(self, c, quiet: bool = True, jobs: int = 2) -> None:
        source, target = c.parallel()
        s_tok = pipeline.tokenize(source, c.source_lang, quiet=quiet, jobs=jobs, desc="tokenizing source")
        t_tok = pipeline.tokenize(target, c.target_lang, quiet=quiet, jobs=jobs, desc="tokenizing target")
        self.table = pipeline.train_table(s_tok, t_tok, quiet=quiet)
        self.analyzer = pipeline.query_analyzer(c.source_lang, s_tok)
        self.index = pipeline.index_documents(*c.documents(), c.target_lang, quiet=quiet, jobs=jobs)
        self.quiet = quiet

    def psq(self, queries: dict):
        """PSQ's run over ``queries`` ``{qid: text}``."""
        return pipeline.psq_run(self.index, self.table, queries, self.analyzer, quiet=self.quiet)


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
    with steps.time("table and index"):
        baseline = Baseline(c, a.quiet, a.jobs)
    for split in a.splits:
        with steps.time(f"PSQ {split}"):
            path = base_run_path(a.collection, a.variant, split)
            path.parent.mkdir(parents=True, exist_ok=True)
            write_run(pipeline.drop_excluded(baseline.psq(c.queries(split)), c.excluded(split)), path)
    print(", ".join(f"{k} {v:.1f} s" for k, v in steps.seconds.items()),
          f"; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
