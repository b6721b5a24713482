"""Translation tables p(e|f): IBM Model 1 training, dictionaries, file formats, pruning, interpolation.

- :class:`TranslationTable` (table.py): the sparse p(e|f) over two vocabularies, with its languages
  (``params["source_lang"]``, ``["target_lang"]``) and, for dictionaries, the translations' ranks;
- :func:`train_ibm1`, :func:`train_table` (ibm1.py): IBM Model 1 by EM, vectorized;
- :func:`load_table`, :func:`save_table`, :func:`guess_format` and the Moses / npz readers (tableio.py);
- dictionaries: :func:`dictionary_table` (dictionaries.py) and the readers of plain pairs, MUSE, FreeDict and
  Ding, :func:`load_dictionary` (dictionary_readers.py);
- :func:`prune`, :func:`interpolate` (prune.py): SPEC §4 steps 1-2.
"""

from clirkit.translation.dictionaries import (
    DICTIONARY_FORMATS,
    MULTIWORD_TARGET,
    PHRASE_JOINER,
    WEIGHTINGS,
    dictionary_report,
    dictionary_table,
    languages_from_name,
)
from clirkit.translation.dictionary_readers import (
    ding_entries,
    freedict_entries,
    load_dictionary,
    load_ding,
    load_freedict,
    load_muse,
    load_pairs,
    muse_entries,
    pairs_entries,
)
from clirkit.translation.ibm1 import train_ibm1, train_table
from clirkit.translation.prune import interpolate, prune
from clirkit.translation.table import NULL, TableFormatError, TranslationTable, normalize_rows
from clirkit.translation.tableio import (
    FORMATS,
    detect_format,
    format_of,
    guess_format,
    load_moses,
    load_npz_table,
    load_table,
    save_moses,
    save_npz_table,
    save_table,
)

__all__ = [
    "NULL",
    "TranslationTable",
    "TableFormatError",
    "normalize_rows",
    "train_ibm1",
    "train_table",
    "prune",
    "interpolate",
    "FORMATS",
    "DICTIONARY_FORMATS",
    "MULTIWORD_TARGET",
    "PHRASE_JOINER",
    "WEIGHTINGS",
    "detect_format",
    "format_of",
    "guess_format",
    "dictionary_table",
    "dictionary_report",
    "languages_from_name",
    "pairs_entries",
    "muse_entries",
    "freedict_entries",
    "ding_entries",
    "load_dictionary",
    "load_pairs",
    "load_muse",
    "load_freedict",
    "load_ding",
    "load_moses",
    "load_npz_table",
    "load_table",
    "save_moses",
    "save_npz_table",
    "save_table",
]
