"""PSQ as the first stage of a PyTerrier pipeline, followed by a re-ranker written in PyTerrier.

    pip install 'clirkit[pyterrier]'        # PyTerrier 1.x; no Java: only clirkit's transformers run
    python examples/pyterrier_psq_rerank.py

On the bundled nave-en-es collection (English topics, Spanish verses), in about a minute on two cores: IBM
Model 1 tables trained on the verse pairs both ways and an index of the verses (as `clirkit demo` makes them), DT
(the queries translated) and PSQ (the documents translated into English, as the demo's PSQ) as
PyTerrier transformers, PSQ's top 100 re-ranked by a transformer written in PyTerrier, and pt.Experiment's table of
AP, nDCG@10 and R@1000 on the 1,280 test topics, computed by PyTerrier's own evaluation (ir_measures). The last line
is clirkit's evaluation of PSQ's run with the same measure objects: pt.Experiment's numbers.

The re-ranker here is a mild prior for longer verses (score times words ** 0.1, the exponent chosen on the dev
topics among 0.1, 0.2 and 0.5); it stands for any re-ranker, a neural one included: replace LongerVerses.
"""

from __future__ import annotations

import pyterrier as pt
from pyterrier.measures import AP, R, nDCG

from clirkit import datasets
from clirkit import pyterrier as cpt
from clirkit.analysis import Analyzer
from clirkit.documents import Documents
from clirkit.metrics import evaluate
from clirkit.retrieval.index import Index
from clirkit.systems import DT, PSQ, Resources
from clirkit.translation import train_table

c = datasets.load("nave-en-es")
en, es = Analyzer("en"), Analyzer("es")
source, target = c.parallel()
en_tokens, es_tokens = en.tokenize_many(source), es.tokenize_many(target)
table = train_table(en_tokens, es_tokens, en, es)  # IBM Model 1, p(es|en): DT translates the queries with it
reverse = train_table(es_tokens, en_tokens, es, en)  # p(en|es): PSQ translates the documents with it, as the demo
documents = Documents(*c.documents())
index = Index.from_tokens(documents.docids, documents.tokens(es), es)

dt = cpt.retriever(DT().fit(Resources(index=index, table=table)))
psq_system = PSQ().fit(Resources(index=index, reverse_table=reverse))  # the documents translated (the default)
psq = cpt.retriever(psq_system)  # a queries frame (qid, query) -> a results frame (qid, docno, score, rank, query)


class LongerVerses(pt.Transformer):
    """A re-ranker written in PyTerrier: a results frame in, the same rows re-scored and re-ranked out."""

    def __init__(self, words: dict[str, int], power: float = 0.1) -> None:
        self.words, self.power = words, power

    def transform(self, results):
        rescored = results.assign(score=results["score"] * results["docno"].map(self.words) ** self.power)
        return pt.model.add_ranks(rescored)


words = dict(zip(documents.docids, (len(text.split()) for text in documents.texts)))
topics, qrels = cpt.topics_frame(c.queries("test")), cpt.qrels_frame(c.qrels("test"))
table = pt.Experiment(
    [dt, psq, psq % 100, psq % 100 >> LongerVerses(words)],
    topics,
    qrels,
    eval_metrics=[AP, nDCG @ 10, R @ 1000],
    names=["DT", "PSQ", "PSQ % 100", "PSQ % 100 >> LongerVerses"],
)
print(table.to_string(index=False))
clirkit_psq = evaluate(psq_system.search(topics), c.qrels("test"), [AP, nDCG @ 10, R @ 1000])
print("clirkit's evaluation of PSQ:", clirkit_psq.mean())
