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
            raise TableMismatch("the table does not say its source language: give source_lang (--source-lang)")
        base = Analyzer(lang, stemmer=None, chinese_script=None)
    if not stopwords:
        return base
    if isinstance(stopwords, str):
        stopwords = snowball_stopwords(base.lang)
    return base.replace(stopwords=set(base.stopwords) | set(stopwords))


def as_table(table, *, optional: bool = False, index=None):
    """``table`` as a :class:`~clirkit.translation.table.TranslationTable`: a table as it is, a path read by
    :func:`~clirkit.translation.load_table` (a dictionary's or a phrase table's words analyzed with the
    normalization version of ``index``'s analyzer when given: an index an older clirkit made), None when
    ``optional`` (an index translated before); ClirkitError naming what a system's ``fit`` takes otherwise."""
    import os

    from clirkit.translation.table import TranslationTable

    if isinstance(table, TranslationTable) or (table is None and optional):
        return table
    if isinstance(table, (str, os.PathLike)):
        from clirkit.translation import load_table

        version = index.analyzer.normalization_version if index is not None else None
        return load_table(table, normalization_version=version)
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
    """Which side a table that does not say its languages translates, from its words (:func:`index_terms`:
    index terms as written or once analyzed as the index is): ``documents`` when at least :data:`PLACED_SHARE` of
    its source words are index terms and twice as many as its target words (it translates from the documents'
    language), ``queries`` for the reverse, None otherwise (a table of other languages; one between two languages
    that share most words)."""
    found = [index_terms(words, index) for words in (table.source_vocab, table.target_vocab)]
    (source, n_source), (target, n_target) = ((max(pair[:2]), pair[2]) for pair in found)
    if source > 2 * target and source >= PLACED_SHARE * n_source:
        return "documents"
    if target > 2 * source and target >= PLACED_SHARE * n_target:
        return "queries"
    return None


def side_by_parallel(table, texts, analyzers) -> str | None:
    """Which side a table that does not say its languages translates, from the words of a parallel corpus (when
    the index alone does not tell, :func:`side_by_words`): ``texts`` the queries' and the documents' side (at most
    :data:`SAMPLE` lines of each read, as their ``analyzers`` cut them, before and after stemming). ``documents``
    when the table's source words are the documents' side's words and its target words the queries' side's,
    together, at least :data:`PARALLEL_RATIO` times as often as the other way round (names and numbers are
    shared); ``queries`` for the reverse; None otherwise."""
    words = [_words_of(_sample(list(side)), a) for side, a in zip(texts, analyzers)]
    (source_q, source_d), (target_q, target_d) = (
        [sum(w in side for w in _sample(vocab)) for side in words] for vocab in (table.source_vocab, table.target_vocab)
    )
    if source_d + target_q >= PARALLEL_RATIO * max(1, source_q + target_d):
        return "documents"
    if source_q + target_d >= PARALLEL_RATIO * max(1, source_d + target_q):
        return "queries"
    return None


def _words_of(lines: list[str], analyzer) -> set[str]:
    """The tokens of ``lines`` as ``analyzer`` cuts them (:meth:`~clirkit.analysis.Analyzer.surface_tokens`) and
    its terms of them."""
    words: set[str] = set()
    for line in lines:
        tokens = analyzer.surface_tokens(line)
        words.update(tokens, analyzer.finish(tokens))
    return words


def index_terms(words, index) -> tuple[int, int, int]:
    """``(written, analyzed, n)``: of ``n`` of ``words`` (at most :data:`SAMPLE`, evenly spaced), how many are
    ``index``'s terms as written, and how many once analyzed as the index is (every term of the word one)."""
    sample = _sample(words)
    vocabulary, bare = index.vocabulary, index.analyzer.without_stopwords()
    written = sum(w in vocabulary for w in sample)
    analyzed = sum(bool(ts) and all(t in vocabulary for t in ts) for ts in bare.tokenize_many(sample))
    return written, analyzed, len(sample)


def check_languages(table, index, source_lang: str | None = None) -> None:
    """ClirkitError when the table's target language is not the index's, its target terms are not analyzed as
    the index's (stemming, case, bigrams), or its source language is not ``source_lang`` (when known): a
    mismatch would silently tokenize with the wrong analyzer or match no term."""
    target = table_language(table, "target")
    if target is not None and target != index.analyzer.lang:
        raise TableMismatch(f"the table translates into {target!r} but the index is in {index.analyzer.lang!r}")
    check_direction(table, index)
    check_index_side(table, "target", index, "target words")
    source = table_language(table, "source")
    if source is not None and source_lang is not None and source != source_lang:
        raise TableMismatch(
            f"the queries are in {source_lang!r} (source_lang) but the table translates from {source!r}"
        )


def check_direction(table, index, *, second: bool = False) -> None:
    """TableMismatch when ``table`` says no language and its words say it translates from the documents' language
    (:func:`side_by_words`), where a table into it is wanted (``second``: the second table of the queries)."""
    if table_language(table, "target") is None and table_language(table, "source") is None:
        if side_by_words(index, table) != "documents":
            return
        if second:
            raise TableMismatch(
                "the table's source words are the index's terms, not its target words: it translates from the "
                "documents' language, and the first table into it; give a second table of the first one's direction"
            )
        raise TableMismatch(
            "the table's source words are the index's terms, not its target words: it translates "
            "from the documents' language; translate the documents with it (in Python: "
            "Resources(reverse_table=...) to DocPSQ or PSQ; on the command line: --translate documents, which "
            "auto chooses for one table alone), or give the table of the other direction"
        )


def check_index_side(table, side: str, index, words: str) -> None:
    """ClirkitError when the ``side`` analyzer a table records (its settings) does not make the index's terms;
    ``words`` names that side's words in the message (e.g. ``target words``)."""
    from clirkit.analysis import Analyzer

    settings = table.params.get(f"{side}_analyzer")
    if isinstance(settings, dict):
        made = Analyzer.from_dict(settings, where=f"the table's {side} analyzer")
        if not same_terms(made, index.analyzer):
            how = analyses_differ(made, index.analyzer, "the index's terms")
            raise TableMismatch(
                f"the table's {words} were analyzed {how}: rebuild one of them with the other's analysis "
                f"({'--stemmer, --segmenter, --chinese-script, --keep-case' if how.startswith('as ') else OLDER})"
            )


#: How to make the settings a word does not describe (:func:`analyses_differ`) agree.
OLDER = "an index or table written by an older clirkit: make it again"


def differing_settings(first, second) -> list[str]:
    """The settings that make terms on which two analyzers differ, sorted: every one
    :meth:`~clirkit.analysis.Analyzer.to_dict` records but the stopwords (the case, stemming, segmentation, script,
    ``compose``, ``normalization_version``: whatever it records, as it records it, an old file's as it was made)."""
    mine, theirs = first.to_dict(), second.to_dict()
    return sorted(key for key in (mine.keys() | theirs.keys()) - {"stopwords"} if mine.get(key) != theirs.get(key))


def same_terms(first, second) -> bool:
    """Whether two analyzers make the same terms of every word (:func:`differing_settings`; stopwords may differ): a
    table and an index, or two tables' query sides, must."""
    return not differing_settings(first, second)


def analyses_differ(first, second, what: str) -> str:
    """How ``first`` (a table's words) and ``second`` (``what``: the index's terms, say) were analyzed, for a message:
    ``as es, Snowball stems, ... but the index's terms as es, no stemming, ...`` (:func:`describe_terms`), or,
    where those words do not tell them apart, ``with`` the settings that differ, by name and value (``with
    compose=False, normalization_version=1 but the index's terms with compose=True, normalization_version=2``:
    files clirkit wrote before it composed texts and folded widths, read back as they were made)."""
    if describe_terms(first) != describe_terms(second):
        return f"as {describe_terms(first)} but {what} as {describe_terms(second)}"
    keys = differing_settings(first, second)
    shown = [", ".join(f"{key}={getattr(made, key, None)!r}" for key in keys) for made in (first, second)]
    return f"with {shown[0]} but {what} with {shown[1]}"


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


#: A side's words are taken as the terms they are (stems) when at least this share of them are their own term...
STEMMED_SHARE = 0.7
#: ... and when it has at least this many words (a few words typed by hand are words, however short).
STEMMED_MIN = 100
#: At most this many words of a side (evenly spaced in its vocabulary) decide how it is read.
SAMPLE = 20_000
#: A table placed by its words (:func:`side_by_words`) has at least this share of a side's words among index terms.
PLACED_SHARE = 0.25
#: A table placed by a parallel corpus' words (:func:`side_by_parallel`) meets the sides it translates this many
#: times as often as the other two.
PARALLEL_RATIO = 1.5
#: A table that records no analysis and whose index-side words are index terms less often than this is refused...
MEETING_SHARE = 0.02
#: ... and less often than this, said (a table of another domain over a small index may hold as few).
FEW_SHARE = 0.25


def words_for_index(table, index, side: str, *, other_lang: str | None = None, queries=None, quiet: bool = True):
    """``table`` made to meet ``index`` on its ``side`` when it records no analysis of its words (a Moses ``e f p``
    text file, a dictionary read without its languages): ``"target"`` for a table translating the queries into the
    index's language, ``"source"`` for one translating the documents from it.

    That side's words are read as the index's terms they are when they are their own terms (:func:`own_stems`:
    a table clirkit trained and wrote as text holds stems; each made one token as the analyzer makes its tokens,
    :class:`_TermsAsWritten`: a full-width "ＧＤＰ" is the term "gdp"), else analyzed as the index does (its
    analyzer without stopwords: another tool's table of surface words; a table of fewer than :data:`STEMMED_MIN`
    words, typed by hand, is analyzed when that makes more of its words index terms). The other side (the queries'
    language, ``other_lang``, else the table's) is read as stems when the index stems, the index side's words are
    its terms, and the other side's words are their own stems too (a table trained by clirkit stems both sides
    alike; :func:`few_own_stems` for a side of fewer than :data:`STEMMED_MIN` words); else its words are analyzed
    as the queries then are: by ``queries`` when given (the analyzer of a first table's queries, which a second
    table must meet), else with the index's settings in that language, stemmed on the target side (words merged
    there add up exactly) and not on the source side (merged rows would be averaged: on nave-en-es, PSQ over
    another tool's table lost 0.8 AP with stemmed rows). A word analyzed into several terms
    gives each an equal share of its probability on the target side and becomes one phrase on the source side; rows
    are merged by adding and renormalized, a word without terms (punctuation) dropped, Model 1's ``NULL`` kept.
    Whether the words are stems is not told by how many are index terms, which depends on the index's size and
    domain (an independent re-check: a clirkit table over 500 documents was read as words and stemmed twice).

    A dictionary (``params["model"]``, neither pruned nor interpolated) whose other side's language is known
    (``other_lang``, the ``queries``', or its own) is read instead as the command line reads its file
    (:func:`dictionary_as_read`).

    Returns a new table recording the analyzers read (``params["words_read_as"]``: ``terms`` or ``words``, the index
    side's reading), or ``table`` itself when it records an analyzer of either side. :class:`TableMismatch` when
    fewer than :data:`MEETING_SHARE` of the index side's words are index terms, as written or analyzed (a table of
    other languages, or of the other direction); a note when fewer than :data:`FEW_SHARE`; :class:`TableMismatch`
    too when the index does not stem and that side's words are Snowball stems (a stemmed table clirkit trained,
    over an index built with ``--stemmer none``), as :func:`check_index_side` says of a table recording its
    analysis. Said on stderr unless ``quiet``."""
    from clirkit.analysis import SNOWBALL_STEMMERS, Analyzer
    from clirkit.progress import say
    from clirkit.translation.table import TranslationTable

    if any(isinstance(table.params.get(f"{s}_analyzer"), dict) for s in ("source", "target")):
        return table
    other = "source" if side == "target" else "target"
    lang = other_lang or (queries.lang if queries is not None else None) or table.params.get(f"{other}_lang")
    if (
        table.params.get("model") == "dictionary"
        and lang is not None
        and not {"pruning", "interpolation"} & set(table.params)
    ):
        return dictionary_as_read(table, index, side, lang)
    vocab = table.target_vocab if side == "target" else table.source_vocab
    written, analyzed, n = index_terms(vocab, index)
    meeting = max(written, analyzed)
    if meeting < MEETING_SHARE * n:
        raise TableMismatch(
            f"{meeting:,} of {n:,} of the table's {side} words are the index's terms, as written or analyzed as the "
            f"index is: is it a table of these languages, translating {'into' if side == 'target' else 'from'} "
            "the documents' language?"
        )
    bare = index.analyzer.without_stopwords()
    if bare.stemmer is None and bare.lang in SNOWBALL_STEMMERS and own_stems(vocab, bare.replace(stemmer="snowball")):
        raise TableMismatch(  # as check_index_side says it of a table that records its analysis
            f"the table's {side} words are Snowball stems but the index's terms are {describe_terms(bare)} (or the "
            f"table translates the other way): train the table as the index is analyzed (--stemmer none), or index "
            f"with stemming"
        )
    if meeting < FEW_SHARE * n:
        say(
            f"note: only {meeting:,} of {n:,} of the table's {side} words are the index's terms: check that it "
            f"translates {'into' if side == 'target' else 'from'} the documents' language",
            quiet=quiet,
        )
    if len(vocab) >= STEMMED_MIN:
        read_as = "terms" if own_stems(vocab, bare) else "words"
    else:  # a few words (typed by hand): as the index holds more of them
        read_as = "terms" if written >= analyzed else "words"
    params = {**table.params, f"{side}_analyzer": bare.to_dict(), f"{side}_lang": bare.lang, "words_read_as": read_as}
    analyzers = {side: bare if read_as == "words" else _TermsAsWritten.of(vocab, bare), other: None}
    lang, others = other_lang or table.params.get(f"{other}_lang"), "as written"
    if queries is not None or lang is not None:
        if queries is not None:  # the first table's queries: stemming or not, as they are
            stemming = made = queries.without_stopwords()
        else:  # the index's settings in that language; words unstemmed on the source side (rows not averaged)
            settings = {"lowercase": bare.lowercase, "strip_punctuation": bare.strip_punctuation}
            stemming = Analyzer(lang, **settings, stemmer=_stemmer_for(bare))
            made = stemming if other == "target" else stemming.replace(stemmer=None)
        words = table.source_vocab if other == "source" else table.target_vocab
        shown = written > analyzed  # index-side words that are index terms only as written: stems, not words
        stems = read_as == "terms" and stemming.stemmer is not None and holds_stems(words, stemming, stems_shown=shown)
        made = stemming if stems else made
        analyzers[other] = _TermsAsWritten.of(words, stemming) if stems else made
        params[f"{other}_analyzer"], params[f"{other}_lang"] = made.to_dict(), made.lang
        others = "as the stems they are" if stems else "analyzed as the queries are"
    vocabs, probs = _remapped(table, analyzers["source"], analyzers["target"])
    ranks = table.ranks if analyzers == {side: None, other: None} else None
    say(
        f"the table records no analysis of its words: its {side} words are read as "
        f"{'the index terms they are' if read_as == 'terms' else 'words analyzed as the index is'} "
        f"({written:,} of {n:,} are index terms as written, {analyzed:,} analyzed), its {other} words {others} "
        f"(an .npz table keeps its analysis)",
        quiet=quiet,
    )
    return TranslationTable(vocabs[0], vocabs[1], probs, params, ranks)


def dictionary_as_read(table, index, side: str, lang: str):
    """A dictionary's ``table`` read without its languages, read as ``clirkit dt`` and ``psq`` read its file given
    the queries' language (:func:`clirkit.cli.tables.dictionary_reading`): ``side`` (``target``: the queries are
    translated into the index's language; ``source``: the documents from it) in the index's language, the other in
    ``lang``, both analyzed as :func:`~clirkit.translation.load_dictionary` analyzes them, with the index's stemmer,
    segmenter and Chinese script (:func:`~clirkit.translation.dictionaries.reanalyzed`: the dictionary ranks kept).
    :class:`TableMismatch` when that analysis does not make the index's terms, as the command says it."""
    from clirkit.analysis import Analyzer
    from clirkit.translation.dictionaries import reanalyzed

    made = index.analyzer
    settings = {
        "lowercase": table.params.get("lowercase", True),
        "stemmer": made.stemmer,
        "segmenter": made.segmenter,
        "chinese_script": made.chinese_script,
        "normalization_version": made.normalization_version,
    }
    langs = (lang, made.lang) if side == "target" else (made.lang, lang)
    read = reanalyzed(table, Analyzer(langs[0], **settings), Analyzer(langs[1], **settings))
    check_index_side(read, side, index, f"{side} words")
    return read


def source_words_read(table, lang: str) -> list[tuple]:
    """``[(reading, table, analyzer)]``: ``table`` (recording no analysis of its words) with its source words read
    as DT and PSQ read them for queries in ``lang`` over an index of default analysis (:func:`words_for_index`), and
    the analyzer that makes a query word the term looked up in it, for each reading DT may make: ``stems`` (the
    words are the stems they are, each made one token as the analyzer's are) or ``words`` (analyzed unstemmed: case
    folded, punctuation dropped; rows merged): one, or both when only the index DT searches tells
    (:func:`source_readings`). What ``clirkit ttable show --source-lang`` looks a word up in."""
    from clirkit.analysis import Analyzer
    from clirkit.translation.table import TranslationTable

    stemming, out = Analyzer(lang), []
    for reading in source_readings(table, stemming):
        made = stemming if reading == "stems" else stemming.replace(stemmer=None)
        reader = _TermsAsWritten.of(table.source_vocab, stemming) if reading == "stems" else made
        if reader is None:
            out.append((reading, table, made))
            continue
        vocabs, probs = _remapped(table, reader, None)
        out.append((reading, TranslationTable(vocabs[0], vocabs[1], probs, table.params), made))
    return out


def source_readings(table, stemming) -> list[str]:
    """How DT reads the source words of ``table`` (recording no analysis) for queries analyzed by ``stemming`` over
    an index of default analysis: ``["stems"]``, ``["words"]``, or both when only the index tells. A dictionary, or
    a side of at least :data:`STEMMED_MIN` words: stems when they are their own (:func:`own_stems`). A smaller side:
    words when fewer than :data:`STEMMED_SHARE` are their own stems (over any index); else DT asks the index whether
    the target words are its terms as written, some only as written (:func:`words_for_index`): with the target
    language known (``params["target_lang"]``), the target words stemmed in it tell instead (:data:`STEMMED_SHARE`
    their own stems: stems; some not: stems shown)."""
    from clirkit.analysis import Analyzer

    words, target_lang = table.source_vocab, table.params.get("target_lang")
    if stemming.stemmer is None:
        return ["words"]
    if table.params.get("model") == "dictionary" or len(words) >= STEMMED_MIN:
        return ["stems" if own_stems(words, stemming) else "words"]
    if not few_own_stems(words, stemming, stems_shown=True):
        return ["words"]
    if target_lang is None or Analyzer(target_lang).stemmer is None:
        return ["stems", "words"]
    target = Analyzer(target_lang)
    if not few_own_stems(table.target_vocab, target, stems_shown=True):
        return ["words"]  # the target words are words: so are the source words
    shown = not few_own_stems(table.target_vocab, target, stems_shown=False)  # stems, some not their own
    return ["stems" if few_own_stems(words, stemming, stems_shown=shown) else "words"]


def _stemmer_for(index_analyzer) -> str | None:
    """The stemmer of the queries' language for a table over an index of ``index_analyzer``: the index's choice
    where its language has a Snowball stemmer to choose (``--stemmer none`` kept), Snowball where it has none (a
    Chinese, Japanese, Korean or Thai index: a table clirkit trained holds the other language's stems, an
    independent test: DT over a zh index .84 AP with the .npz, .62 with its text, English left unstemmed)."""
    from clirkit.analysis import SNOWBALL_STEMMERS

    return index_analyzer.stemmer if index_analyzer.lang in SNOWBALL_STEMMERS else "snowball"


def holds_stems(words, analyzer, *, stems_shown: bool) -> bool:
    """Whether the words of a side of a table recording no analysis are ``analyzer``'s terms, the stems a table
    clirkit trained holds (on both sides): :func:`own_stems` for a side of at least :data:`STEMMED_MIN` words, else
    :func:`few_own_stems` (``stems_shown``: the other side's words show stems). The reading of
    :func:`words_for_index` (DT, PSQ), which :func:`source_readings` (``clirkit ttable show``) follows."""
    if len(words) >= STEMMED_MIN:
        return own_stems(words, analyzer)
    return few_own_stems(words, analyzer, stems_shown=stems_shown)


def own_stems(words, analyzer) -> bool:
    """Whether ``words`` (at most :data:`SAMPLE`, evenly spaced) read as ``analyzer``'s terms already: at least
    :data:`STEMMED_MIN` of them, and at least :data:`STEMMED_SHARE` their own analysis (a table clirkit trained holds
    84-98% of its stems unchanged by stemming again; surface words 9-46%, on nave-en-es's English and Spanish)."""
    sample = _sample(words)
    own = sum(ts == [w] for ts, w in zip(analyzer.tokenize_many(sample), sample))
    return len(sample) >= STEMMED_MIN and own >= STEMMED_SHARE * len(sample)


def few_own_stems(words, analyzer, *, stems_shown: bool) -> bool:
    """Whether the other side of a table of fewer than :data:`STEMMED_MIN` words, whose index side is read as the
    terms it holds, reads as ``analyzer``'s terms (stems: a table clirkit trained stems both sides alike): when
    every word (Model 1's ``NULL`` aside) is its own term, for a query word then meets as a stem every word it
    meets as written, and its inflections too; or, when ``stems_shown`` (some index-side words are index terms as
    written and not once analyzed: stems, not words), when :data:`STEMMED_SHARE` of them are."""
    from clirkit.translation.table import NULL

    sample = [w for w in _sample(words) if w != NULL]
    own = sum(ts == [w] for ts, w in zip(analyzer.tokenize_many(sample), sample))
    return bool(sample) and own >= (STEMMED_SHARE * len(sample) if stems_shown else len(sample))


def _sample(words) -> list[str]:
    """At most :data:`SAMPLE` of ``words`` (a str array), evenly spaced: what tells how a side of a table reads."""
    picked = words[:: max(1, len(words) // SAMPLE)]
    return picked if isinstance(picked, list) else picked.tolist()


class _TermsAsWritten:
    """The words of a table's side read as the terms they are, each made one token as ``analyzer``'s tokens are
    (:meth:`~clirkit.analysis.Analyzer.as_token`: composed, widths folded, lower case...): a table of terms holding a
    full-width "ＧＤＰ" meets the term "gdp". Analyzes as an :class:`~clirkit.analysis.Analyzer` does for
    :func:`_remapped`."""

    def __init__(self, analyzer) -> None:
        self.analyzer = analyzer

    @classmethod
    def of(cls, words, analyzer) -> "_TermsAsWritten | None":
        """The reading of ``words`` as ``analyzer``'s terms; None when every word is one already, or Model 1's
        ``NULL`` (kept as written)."""
        from clirkit.translation.table import NULL

        kept = all(analyzer.as_token(w) == w or w == NULL for w in words.tolist())
        return None if kept else cls(analyzer)

    def tokenize_many(self, words: list[str]) -> list[list[str]]:
        return [[t] if (t := self.analyzer.as_token(w)) else [] for w in words]


def _remapped(table, source_analyzer, target_analyzer):
    """``((source vocabulary, target vocabulary), probabilities)`` of ``table`` with the words of each side given an
    analyzer replaced by their terms (:func:`words_for_index`), rows renormalized; the table's own when neither."""
    import scipy.sparse as sp

    from clirkit.translation.table import normalize_rows

    if source_analyzer is None and target_analyzer is None:
        return (table.source_vocab, table.target_vocab), table.probs
    probs, vocabs = table.probs, [table.source_vocab, table.target_vocab]
    if source_analyzer is not None:
        vocabs[0], to_terms = _terms_of(table.source_vocab.tolist(), source_analyzer, phrases=True)
        probs = to_terms.T.tocsr() @ probs
    if target_analyzer is not None:
        vocabs[1], to_terms = _terms_of(table.target_vocab.tolist(), target_analyzer, phrases=False)
        probs = probs @ to_terms
    return (vocabs[0], vocabs[1]), normalize_rows(sp.csr_matrix(probs))


def _terms_of(words: list[str], analyzer, *, phrases: bool):
    """``(terms, words x terms matrix)``: the sorted terms ``analyzer`` makes of ``words``, and each word's share in
    each of its terms (1/k for k terms; its terms joined as one phrase, share 1, with ``phrases``); Model 1's
    ``NULL`` stays itself, a word without terms has none."""
    import numpy as np
    import scipy.sparse as sp

    from clirkit.translation.phrases import PHRASE_JOINER
    from clirkit.translation.table import NULL

    made = [[w] if w == NULL else ts for w, ts in zip(words, analyzer.tokenize_many(words))]
    if phrases:
        made = [[PHRASE_JOINER.join(ts)] if len(ts) > 1 else ts for ts in made]
    terms = np.asarray(sorted({t for ts in made for t in ts}), dtype=str)
    ids = {t: i for i, t in enumerate(terms.tolist())}
    sizes = np.fromiter((len(ts) for ts in made), dtype=np.int64, count=len(made))
    rows = np.repeat(np.arange(len(made)), sizes)
    cols = np.fromiter((ids[t] for ts in made for t in ts), dtype=np.int64, count=len(rows))
    return terms, sp.csr_matrix((1.0 / sizes[rows], (rows, cols)), shape=(len(made), len(terms)))
