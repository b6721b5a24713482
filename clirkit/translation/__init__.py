"""Translation tables p(e|f): IBM Model 1 training, file formats, pruning, interpolation.

- :class:`TranslationTable` (table.py): the sparse p(e|f) over two vocabularies;
- :func:`train_ibm1` (ibm1.py): IBM Model 1 by EM, vectorized;
- :func:`load_table`, :func:`save_table` and the per-format readers (tableio.py);
- :func:`prune`, :func:`interpolate` (prune.py): SPEC §4 steps 1-2.
"""
from clirkit.translation.ibm1 import train_ibm1, train_table
from clirkit.translation.prune import interpolate, prune
from clirkit.translation.table import NULL, TranslationTable, normalize_rows
from clirkit.translation.tableio import (FORMATS, detect_format, freedict_entries, load_freedict,
                                         load_moses, load_muse, load_npz_table, load_pairs, load_table,
                                         save_moses, save_npz_table, save_table, uniform_table)

__all__ = ["NULL", "TranslationTable", "normalize_rows", "train_ibm1", "train_table", "prune", "interpolate", "FORMATS",
           "detect_format", "freedict_entries", "load_freedict", "load_moses", "load_muse",
           "load_npz_table", "load_pairs", "load_table", "save_moses", "save_npz_table", "save_table",
           "uniform_table"]
