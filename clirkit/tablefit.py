"""Whether a translation table fits an index and its queries: the query analyzer a table gives, its languages and
the analysis of its words, the side PSQ translates with it (the queries, or the documents when it translates from
the index's language), and the errors of a table that does not fit (:class:`TableMismatch`, named by the command
line with the table's file). Used by the systems (:mod:`clirkit.systems`) and the document translation
(:mod:`clirkit.docpsq`)."""

from __future__ import annotations

from clirkit.errors import ClirkitError


class TableMismatch(ClirkitError):
    """A table that does not fit the index or the queries (its direction, languages or analysis): the command
    line names the table's file before the message."""


class SecondTableMismatch(TableMismatch):
    """The second table (``table2``, ``--table2``) does not fit: the command line names its file."""


def query_analyzer(table, *, lang: str | None = None, stopwords=None, quiet: bool = True):
    """The analyzer of source-language queries for ``table``.

    Its settings are the table's source-side analyzer (``lang`` overrides the language; a table without
    one, e.g. a dictionary converted before analysis was recorded or a Moses file, gets the analyzer of
    ``lang``, else of the table's source language, without stemming and without Chinese script conversion: its
    words were neither stemmed nor converted; a table
    that says no language needs ``lang``); its stopwords are the analyzer's and ``stopwords`` (words, or
    ``"snowball"``: the Snowball list of the query language).
    """
    from clirkit.analysis import Analyzer, snowball_stopwords

    settings = table.params.get("source_analyzer")
    made = Analyzer.from_dict(settings) if settings else None
    if made is not None and lang in (None, made.lang):
        base = made
    else:
        lang = lang or table_language(table, "source")
        if lang is None:
            raise ClirkitError("the table does not say its source language: give source_lang (--source-lang)")
        base = Analyzer(lang, stemmer=None, chinese_script=None)
    if not stopwords:
        return base
    if isinstance(stopwords, str):
        stopwords = snowball_stopwords(base.lang)
    return base.replace(stopwords=set(base.stopwords) | set(stopwords))


def as_table(table, *, optional: bool = False):
    """``table`` as a :class:`~clirkit.translation.table.TranslationTable`: a table as it is, a path read by
    :func:`~clirkit.translation.load_table`, None when ``optional`` (an index translated before); ClirkitError
    naming what a system's ``fit`` takes otherwise."""
    import os

    from clirkit.translation.table import TranslationTable

    if isinstance(table, TranslationTable) or (table is None and optional):
        return table
    if isinstance(table, (str, os.PathLike)):
        from clirkit.translation import load_table

        return load_table(table)
    raise ClirkitError(
        f"table: expected a translation table (clirkit.translation.load_table(path), train_table(...)) or a table "
        f"file's path, got {type(table).__name__}: Resources(index=..., table=...)"
    )


def stopword_terms(words, analyzer) -> set[str]:
    """A target stoplist as the terms it must match: ``"snowball"`` is :func:`snowball_terms`; a list of words is
    each word as given and as ``analyzer`` (without its stopwords) makes it (its case, stem, script), so that a
    plain word and a term already analyzed both match."""
    if isinstance(words, str) and words == "snowball":
        return snowball_terms(analyzer)
    listed = set(words or ())
    bare = analyzer.without_stopwords()
    return listed | {t for w in listed for t in bare.tokenize(w)}


def snowball_terms(analyzer) -> set[str]:
    """The terms ``analyzer`` (without its stopwords) makes of the Snowball stopword list of its language:
    the list as an index of that analysis holds it (e.g. stemmed)."""
    from clirkit.analysis import snowball_stopwords

    try:
        words = snowball_stopwords(analyzer.lang)
    except ClirkitError as exc:
        raise ClirkitError(f"target_stopwords: {exc}") from None
    bare = analyzer.without_stopwords()
    return {t for w in words for t in bare.tokenize(w)}


def corpus_stopterms(table, top: int, *, quiet: bool = True) -> frozenset[str]:
    """The ``top`` most frequent source terms of the table's training corpus (``params["source_frequent"]``,
    analyzed terms), the corpus-derived query stoplist; empty (said on stderr) for a table without that list."""
    from clirkit.progress import say

    frequent = list(table.params.get("source_frequent") or [])
    if top and not frequent:
        say(f"the table records no source-word frequencies: no corpus-derived source stoplist (top {top})", quiet=quiet)
    return frozenset(frequent[:top])


def table_language(table, side: str) -> str | None:
    """The ``side`` ("source" or "target") language a table records: ``params[side + "_lang"]``, else its
    analyzer's, else None (a table that says nothing, e.g. an old Moses text file)."""
    lang = table.params.get(f"{side}_lang")
    analyzer = table.params.get(f"{side}_analyzer")
    if lang is None and isinstance(analyzer, dict):
        lang = analyzer.get("lang")
    return lang if isinstance(lang, str) else None


def side_of(index, table, table2) -> str:
    """The side ``clirkit psq --table FILE`` (``--translate auto``) translates: ``documents`` for an index
    translated before, or a table from the index's language into another; ``queries`` otherwise (a table into
    the index's language). A table that does not say its languages (a Moses or plain file) is placed by its
    words (:func:`side_by_words`), ``queries`` when they do not tell, or when a second table is given (the
    second table then follows the first: both translate the documents only when the first says it does)."""
    if getattr(index, "translated", False):  # an index of documents translated before (clirkit.docpsq)
        return "documents"
    if table is None:
        return "queries"
    source, target = table_language(table, "source"), table_language(table, "target")
    lang = index.analyzer.lang
    if source is None and target is None:
        return (side_by_words(index, table) or "queries") if table2 is None else "queries"
    return "documents" if source == lang and target not in (None, lang) else "queries"


def side_by_words(index, table) -> str | None:
    """Which side a table that does not say its languages translates, from its words: ``documents`` when its
    source words are index terms at least twice as often as its target words (it translates from the documents'
    language), ``queries`` for the reverse, None when neither side is twice the other (e.g. a table between two
    languages that share most words)."""
    vocabulary = index.vocabulary
    found = [sum(w in vocabulary for w in words.tolist()) for words in (table.source_vocab, table.target_vocab)]
    if found[0] > 2 * found[1]:
        return "documents"
    if found[1] > 2 * found[0]:
        return "queries"
    return None


def check_languages(table, index, source_lang: str | None = None) -> None:
    """ClirkitError when the table's target language is not the index's, its target terms are not analyzed as
    the index's (stemming, case, bigrams), or its source language is not ``source_lang`` (when known): a
    mismatch would silently tokenize with the wrong analyzer or match no term."""
    target = table_language(table, "target")
    if target is not None and target != index.analyzer.lang:
        raise TableMismatch(f"the table translates into {target!r} but the index is in {index.analyzer.lang!r}")
    if target is None and table_language(table, "source") is None and side_by_words(index, table) == "documents":
        raise TableMismatch(
            "the table's source words are the index's terms, not its target words: it translates "
            "from the documents' language; translate the documents with it (--translate documents "
            "or auto), or give the table of the other direction"
        )
    check_index_side(table, "target", index, "target words")
    source = table_language(table, "source")
    if source is not None and source_lang is not None and source != source_lang:
        raise TableMismatch(
            f"the queries are in {source_lang!r} (source_lang) but the table translates from {source!r}"
        )


def check_index_side(table, side: str, index, words: str) -> None:
    """ClirkitError when the ``side`` analyzer a table records (its settings) does not make the index's terms;
    ``words`` names that side's words in the message (e.g. ``target words``)."""
    from clirkit.analysis import Analyzer

    settings = table.params.get(f"{side}_analyzer")
    if isinstance(settings, dict):
        made = Analyzer.from_dict(settings, where=f"the table's {side} analyzer")
        if not made.same_terms_as(index.analyzer):
            raise TableMismatch(
                f"the table's {words} were analyzed as {describe_terms(made)} but the index's "
                f"terms as {describe_terms(index.analyzer)}: rebuild one of them with the "
                f"other's analysis (--stemmer, --segmenter, --chinese-script, --keep-case)"
            )


def describe_terms(analyzer) -> str:
    """The term-making settings of ``analyzer`` in words, e.g. ``es, Snowball stems, lowercased``."""
    parts = [
        analyzer.lang,
        "Snowball stems" if analyzer.stemmer else "no stemming",
        "lowercased" if analyzer.lowercase else "case kept",
    ]
    if analyzer.segmenter is not None:
        parts.append(f"{analyzer.segmenter} segmenter")
    if analyzer.chinese_script is not None:
        parts.append(f"{analyzer.chinese_script} Chinese")
    if not analyzer.strip_punctuation:
        parts.append("punctuation kept")
    return ", ".join(parts)


#: A side of a table that records no analysis is read as words to analyze when analyzing them as the index does
#: makes at least this many times as many of them index terms as they are written.
ANALYZED_MARGIN = 1.25
#: A side whose words record no analysis is taken as stems when at least this share of them are their own stem.
STEMMED_SHARE = 0.7
#: ... and when it has at least this many words (a few words typed by hand are words, however short).
STEMMED_MIN = 100
#: At most this many words of a side (evenly spaced in its vocabulary) decide how it is read.
SAMPLE = 20_000


def words_for_index(table, index, side: str, *, other_lang: str | None = None, quiet: bool = True):
    """``table`` made to meet ``index`` on its ``side`` when it records no analysis of its words (a Moses ``e f p``
    text file, a dictionary read without its languages): ``"target"`` for a table translating the queries into the
    index's language, ``"source"`` for one translating the documents from it.

    That side's words are read as the index's terms as written (a table clirkit trained and wrote as text holds
    stems), unless analyzing them as the index does (its analyzer without stopwords) makes at least
    :data:`ANALYZED_MARGIN` times as many of them index terms (another tool's table of surface words): then each
    word becomes its terms, a word of several terms giving each an equal share of its probability on the target
    side and one phrase on the source side, rows merged by adding and renormalized, a word without terms
    (punctuation) dropped, Model 1's ``NULL`` kept. The other side (the queries' words, language ``other_lang``,
    else the table's) is read as stems, analyzed as the index is but in its language, when the index stems, the
    index side's words are its terms as written, and at least :data:`STEMMED_SHARE` of the other side's words (at
    least :data:`STEMMED_MIN` of them) are their own stem (a table trained by clirkit stems both sides alike); else
    as written (queries then meet it lowercased, unstemmed: :func:`query_analyzer`). Each choice is made on at most
    :data:`SAMPLE` words of a side.

    Returns a new table recording the analyzers read (``params["words_read_as"]``: ``terms`` or ``words``), or
    ``table`` itself when it records an analyzer of either side. Said on stderr unless ``quiet``."""
    from clirkit.analysis import Analyzer
    from clirkit.progress import say
    from clirkit.translation.table import TranslationTable

    if any(isinstance(table.params.get(f"{s}_analyzer"), dict) for s in ("source", "target")):
        return table
    other = "source" if side == "target" else "target"
    vocab = table.target_vocab if side == "target" else table.source_vocab
    bare = index.analyzer.without_stopwords()
    sample = vocab[:: max(1, len(vocab) // SAMPLE)].tolist()
    vocabulary = index.vocabulary
    written = sum(w in vocabulary for w in sample)
    analyzed = sum(bool(ts) and all(t in vocabulary for t in ts) for ts in bare.tokenize_many(sample))
    params = {**table.params, f"{side}_analyzer": bare.to_dict(), f"{side}_lang": bare.lang}
    params["words_read_as"] = "words" if analyzed >= ANALYZED_MARGIN * max(written, 1) else "terms"
    probs = table.probs
    if params["words_read_as"] == "words":
        vocab, probs = _analyzed_side(table, side, bare)
    lang = other_lang or table.params.get(f"{other}_lang")
    if lang is not None and params["words_read_as"] == "terms" and bare.stemmer is not None:
        stemming = Analyzer(lang, lowercase=bare.lowercase, strip_punctuation=bare.strip_punctuation)
        words = table.source_vocab if other == "source" else table.target_vocab
        others = words[:: max(1, len(words) // SAMPLE)].tolist()
        own = sum(ts == [w] for ts, w in zip(stemming.tokenize_many(others), others))
        if stemming.stemmer is not None and len(others) >= STEMMED_MIN and own >= STEMMED_SHARE * len(others):
            params[f"{other}_analyzer"] = stemming.to_dict()
            params[f"{other}_lang"] = lang
    vocabs = (table.source_vocab, vocab) if side == "target" else (vocab, table.target_vocab)
    ranks = table.ranks if params["words_read_as"] == "terms" else None
    say(
        f"the table records no analysis of its words: its {side} words are read as "
        f"{'the index terms they are' if params['words_read_as'] == 'terms' else 'words analyzed as the index is'} "
        f"({written:,} of {len(sample):,} are index terms as written, {analyzed:,} analyzed), its {other} words as "
        f"{'stems' if f'{other}_analyzer' in params else 'written'} (an .npz table keeps its analysis)",
        quiet=quiet,
    )
    return TranslationTable(vocabs[0], vocabs[1], probs, params, ranks)


def _analyzed_side(table, side: str, analyzer):
    """``(vocabulary, probabilities)`` of ``table`` with its ``side`` words replaced by their terms under
    ``analyzer`` (:func:`words_for_index`): rows renormalized."""
    import numpy as np
    import scipy.sparse as sp

    from clirkit.translation.phrases import PHRASE_JOINER
    from clirkit.translation.table import NULL, normalize_rows

    words = (table.target_vocab if side == "target" else table.source_vocab).tolist()
    made = [[w] if w == NULL else ts for w, ts in zip(words, analyzer.tokenize_many(words))]
    if side == "source":  # a source word of several terms is one phrase
        made = [[PHRASE_JOINER.join(ts)] if len(ts) > 1 else ts for ts in made]
    vocab = np.asarray(sorted({t for ts in made for t in ts}), dtype=str)
    ids = {t: i for i, t in enumerate(vocab.tolist())}
    sizes = np.fromiter((len(ts) for ts in made), dtype=np.int64, count=len(made))
    rows = np.repeat(np.arange(len(made)), sizes)
    cols = np.fromiter((ids[t] for ts in made for t in ts), dtype=np.int64, count=len(rows))
    to_terms = sp.csr_matrix((1.0 / sizes[rows], (rows, cols)), shape=(len(made), len(vocab)))
    probs = table.probs @ to_terms if side == "target" else to_terms.T.tocsr() @ table.probs
    return vocab, normalize_rows(sp.csr_matrix(probs))
