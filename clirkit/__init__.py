"""clirkit: classical cross-language information retrieval.

Importing the package is cheap: heavy modules (scipy, sacremoses, joblib) are
imported by the submodules that need them, not here.
"""
from __future__ import annotations

from clirkit.errors import ClirkitError

__version__ = "0.1.0"
__all__ = ["ClirkitError", "__version__"]
