"""Issue 40, edge test 12A: settings refused when an experiment file or a command line is read, as their like are:
stopword lists of either side (5)."""

from __future__ import annotations

import pytest
from test_edges_experiment import _refused

_ONE = 'collection = "{mini}"\nmeasures = ["AP"]\n[systems.DT]\nkind = "dt"\n{more}'


# --------------------------------------------------------------------------- finding 5: stopword lists of both sides


@pytest.mark.parametrize("kind", ["psq", "querypsq", "docpsq"])
@pytest.mark.parametrize(
    "key, words, problem",
    [
        ("target_stopwords", "[1]", "expected words (str), got 1"),
        ("target_stopwords", '["de", 2]', "expected words (str), got 2"),
        ("target_stopwords", '["de la"]', "'de la' holds a space: a stopword is one token"),
        ("target_stopwords", '[""]', "'' is empty: a stopword is one token"),
        ("target_stopwords", '["  "]', "'  ' is empty: a stopword is one token"),
        ("target_stopwords", "[]", 'an empty list: list the words, or give "none" for no list'),
        ("source_stopwords", "[1]", "expected words (str), got 1"),
        ("source_stopwords", '["the way"]', "'the way' holds a space: a stopword is one token"),
        ("source_stopwords", '[""]', "'' is empty: a stopword is one token"),
    ],
)
def test_a_stopword_list_the_analyzer_would_refuse_is_refused_when_the_file_is_read_naming_its_key(
    mini, tmp_path, capsys, kind, key, words, problem
):
    # target_stopwords = [1] was a TypeError traceback at fit, after the index and the tables were built; "de la",
    # "" and "  " were accepted (the command line's FILE and source_stopwords refuse them); source_stopwords = [1]
    # was refused at fit only, as "stopwords: ..."
    more = f'[systems.P]\nkind = "{kind}"\n{key} = {words}\n'
    _refused(tmp_path, capsys, _ONE.format(mini=mini, more=more), f"system 'P': {key}: {problem}")
