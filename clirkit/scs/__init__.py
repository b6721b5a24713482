"""The SCS neural retrieval model (smooth cosine similarity, SOSL; Liu et al., COLING 2020).

``SCSModel`` is the estimator; :mod:`.losses`, :mod:`.optim` and
:mod:`.encoding` hold the losses, Adam and the text-to-matrix step.
"""

from __future__ import annotations

from clirkit.scs.encoding import read_word_vectors
from clirkit.scs.model import SCSModel

__all__ = ["SCSModel", "read_word_vectors"]
