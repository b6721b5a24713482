"""``clirkit ttable {train,from-alignments,show,prune,convert}``: make, inspect, prune and convert translation
tables."""

from __future__ import annotations

import argparse

from clirkit.cli.common import (
    HelpFormatter,
    add_analysis_options,
    add_jobs,
    add_language_options,
    add_quiet,
    add_side_stopword_options,
    add_stemmer_option,
    add_verb_with_actions,
    analysis_settings,
    analyzers_of,
    checked,
    listed_file,
    nonnegative_int,
    one_line_errors,
    positive_int,
    segmentation_of,
    side_stopword_files,
    stemmer_of,
)
from clirkit.cli.tables import add_prune_options, add_table_format


def add_dictionary_options(p: argparse.ArgumentParser, *, languages: bool = True):
    """How a dictionary file becomes a table (:func:`clirkit.translation.load_dictionary`), and
    ``--source-lang``/``--target-lang`` (``languages``); returns the group."""
    from clirkit.translation import MULTIWORD_TARGET, WEIGHTINGS

    g = p.add_argument_group("dictionaries (pairs, muse, freedict, ding) and phrase or PSQ tables")
    g.add_argument(
        "--multiword-target",
        choices=MULTIWORD_TARGET,
        default="split",
        help="a translation of several words: split = each word a translation sharing its weight "
        "(BM25 matches words), phrase = kept whole as one term, words joined by a space "
        "(matches only an index of n-grams), drop. A multi-word source side is kept as a phrase of a "
        "dictionary (a query holding its words in order matches it) and dropped (and counted) from a phrase table",
    )
    g.add_argument(
        "--weights",
        choices=WEIGHTINGS,
        default="auto",
        help="p of a word's n translations: uniform = 1/n, rank = (1/r) / (1 + 1/2 + ... + 1/n) for "
        "the r-th listed (MUSE lists the likeliest first); auto = uniform for every format, "
        "chosen across collections (baselines/README.md)",
    )
    g.add_argument(
        "--reverse",
        action="store_true",
        help="read each pair the other way round (the dictionary's or phrase table's target side "
        "becomes the source; a phrase table's p is then --score-column 1, p(s|t), by default)",
    )
    g.add_argument(
        "--score-column",
        type=positive_int,
        default=None,
        metavar="N",
        help="phrase-table: the score read as p(target|source), counted from 1; Moses writes "
        "p(s|t) lex(s|t) p(t|s) lex(t|s) (default: 3, p(t|s); 1 with --reverse)",
    )
    g.add_argument("--keep-case", action="store_true", help="do not lowercase dictionary words")
    add_stemmer_option(g, "a dictionary's words when its languages are known, as index and ttable train analyze text: ")
    if languages:
        add_language_options(g)
        g.description = (
            "--source-lang/--target-lang: the table's languages, stored in it (npz) for dt and psq to "
            "check; required for a dictionary unless its format or name tells them (Ding: de -> en; "
            "names such as es-en.dict, freedict-spa-eng.index); they also label a Moses table, and "
            "must agree with the languages an npz table records"
        )
    return g


def load_table_args(args, path: str, fmt: str, *, require_languages: bool = False):
    """The table at ``path`` read with the options of :func:`add_dictionary_options` in ``args``; says on
    stderr (unless ``args.quiet``) what reading a dictionary, phrase table or PSQ table dropped, split or guessed
    (not when the table is an npz file, whose record tells its conversion's). With
    ``require_languages``, a dictionary whose languages stay unknown is an error."""
    from clirkit.cli.tables import say_rows_above_one
    from clirkit.errors import ClirkitError
    from clirkit.progress import say
    from clirkit.translation import DICTIONARY_FORMATS, dictionary_report, format_of, load_table
    from clirkit.translation.tableio import check_named_format
    from clirkit.translation.weighted import weighted_report

    check_named_format([path], fmt, "--format")
    table = load_table(
        path,
        fmt,
        lowercase=not getattr(args, "keep_case", False),
        source_lang=getattr(args, "source_lang", None),
        target_lang=getattr(args, "target_lang", None),
        multiword_target=getattr(args, "multiword_target", "split"),
        weighting=getattr(args, "weights", "auto"),
        reverse=getattr(args, "reverse", False),
        stemmer=stemmer_of(args),
        **segmentation_of(args),
        score_column=getattr(args, "score_column", None),
    )
    verb = f"ttable {args.action}"
    missing = [
        o
        for o, side in (("--source-lang", "source"), ("--target-lang", "target"))
        if not table.params.get(f"{side}_lang")
    ]
    if missing and require_languages and table.params.get("model") in ("dictionary", "phrase-table", "psq-json"):
        what = "a dictionary" if table.params.get("model") == "dictionary" else "a table"
        raise ClirkitError(  # before the reports of what was read: the error is the only line
            f"{path}: {what} whose languages neither its format nor its name tells: "
            f"give {' and '.join(missing)} (ISO 639-1, e.g. es, en)"
        )
    read_as = format_of(path, fmt)
    if read_as in DICTIONARY_FORMATS:
        for line in dictionary_report(table):
            say(f"{verb}: {line}", quiet=args.quiet)
    if read_as != "npz":  # an npz table records its conversion's counts: not this reading's
        for line in weighted_report(table):
            say(f"{verb}: {line}", quiet=args.quiet)
    if read_as == "moses":
        say_rows_above_one(verb, path, table, args.quiet)
    if missing and hasattr(args, "source_lang") and args.action != "show":
        say(
            f"{verb}: {path} records no {' and no '.join(m[2:] for m in missing)}: give {' and '.join(missing)} "
            f"so that dt and psq can check them",
            quiet=args.quiet,
        )
    return table


def add_parser(sub) -> None:
    actions = add_verb_with_actions(
        sub,
        "ttable",
        "translation tables p(e|f): train (IBM Model 1), from-alignments, show, prune, convert",
        ["train", "from-alignments", "show", "prune", "convert"],
    )
    _add_train(actions)
    _add_from_alignments(actions)
    _add_show(actions)
    _add_prune(actions)
    _add_convert(actions)


def _add_train(actions) -> None:
    from clirkit.cli.params import tokenize_jobs

    t = actions.add_parser(
        "train",
        help="train p(target|source) with IBM Model 1 on a parallel corpus",
        description="Train a lexical table with IBM Model 1 (EM from the uniform table, "
        "so deterministic: no seed). Output format by name: .npz = compact, "
        "anything else = Moses 'e f p' lines (.gz compressed).",
        formatter_class=HelpFormatter,
    )
    t.add_argument(
        "--source",
        required=True,
        help="source-language sentences (one per line, or 'id TAB text' with --aligned-by id)",
    )
    t.add_argument("--target", required=True, help="target-language sentences, aligned with --source")
    t.add_argument(
        "-o",
        "--output",
        required=True,
        help="table file; with --direction both, NAME.e2f.EXT and NAME.f2e.EXT are written",
    )
    t.add_argument(
        "--direction",
        choices=("e2f", "f2e", "both"),
        default="e2f",
        help="e2f = p(target|source) (rows are source words, what DT/PSQ use), f2e = p(source|target), both = the two",
    )
    t.add_argument("--iterations", type=nonnegative_int, default=5, help="EM iterations")
    t.add_argument("--no-null", action="store_true", help="no NULL source word")
    add_language_options(t)
    add_analysis_options(t, stopword_files=False)
    add_side_stopword_options(t, ("the source language's", "the target language's"))
    t.add_argument(
        "--aligned-by",
        choices=("line", "id"),
        default="line",
        help="line: line i of both files is a pair; id: 'id TAB text' files joined on id",
    )
    add_jobs(t, default=tokenize_jobs())
    add_quiet(t)
    one_line_errors(t)
    t.set_defaults(func=checked(run_train, t))


def _add_from_alignments(actions) -> None:
    a = actions.add_parser(
        "from-alignments",
        help="make p(target|source) from word alignments (eflomal, fast_align) and the text they align",
        description="Count word alignments: p(e|f) = count(f aligned to e) / count(f aligned). "
        "--source and --target must be the text as the aligner saw it (one "
        "sentence a line, tokens separated by spaces): the links' indices count "
        "those tokens. Each token is then lowercased and stemmed by the analyzer "
        "of its language, so that the table's terms are the terms of clirkit's "
        "indexes. Output format by name: .npz = compact, else Moses 'e f p'.",
        formatter_class=HelpFormatter,
    )
    a.add_argument("--source", required=True, help="source-language sentences as aligned, one per line")
    a.add_argument("--target", required=True, help="target-language sentences as aligned, one per line")
    a.add_argument(
        "--alignments",
        required=True,
        help="links, one line per sentence pair: 'i-j' pairs (Pharaoh format, 0-based: source token i "
        "- target token j), as eflomal and fast_align write them",
    )
    a.add_argument("-o", "--output", required=True, help="table file (.npz = compact, else Moses 'e f p' lines)")
    a.add_argument(
        "--reverse",
        action="store_true",
        help="make p(source word | target word) instead (rows: the target side's words)",
    )
    add_language_options(a)
    add_analysis_options(a, stopword_files=False)
    a.add_argument("--keep-case", action="store_true", help="do not lowercase the tokens")
    add_quiet(a)
    one_line_errors(a)
    a.set_defaults(func=checked(run_from_alignments, a))


def _add_show(actions) -> None:
    s = actions.add_parser(
        "show", help="print a word's translations with their probabilities", formatter_class=HelpFormatter
    )
    s.add_argument("table", help="table file")
    s.add_argument("words", nargs="+", metavar="WORD", help="source word(s)")
    s.add_argument("-n", type=positive_int, default=10, help="translations to show per word")
    add_table_format(s, "--format")
    add_dictionary_options(s)
    add_quiet(s)
    one_line_errors(s)
    s.set_defaults(func=checked(run_show, s))


def _add_prune(actions) -> None:
    r = actions.add_parser(
        "prune",
        help="prune a table as PSQ does (minimum probability, cumulative mass, at most M options)",
        formatter_class=HelpFormatter,
    )
    r.add_argument("table", help="table file")
    r.add_argument(
        "-o", "--output", required=True, help="pruned table (.npz or Moses text); TABLE itself prunes it in place"
    )
    add_prune_options(r)
    add_table_format(r, "--format")
    add_dictionary_options(r)
    add_quiet(r)
    one_line_errors(r)
    r.set_defaults(func=checked(run_prune, r))


def _add_convert(actions) -> None:
    c = actions.add_parser(
        "convert",
        help="convert between table formats (or a dictionary into a table)",
        description="Convert a table or a dictionary. A dictionary's counts (pairs read, "
        "multi-word sides dropped or split) are said on stderr; its languages "
        "are stored in the table. Only .npz keeps the languages, parameters "
        "and dictionary ranks (DT's choice among equally probable translations); "
        "Moses text keeps the probabilities.",
        formatter_class=HelpFormatter,
    )
    c.add_argument("table", help="table or dictionary file")
    c.add_argument("-o", "--output", required=True, help="output: .npz = compact, else Moses 'e f p' lines")
    add_table_format(c, "--format")
    add_dictionary_options(c)
    add_quiet(c)
    one_line_errors(c)
    c.set_defaults(func=checked(run_convert, c))


def _suffixed(path: str, direction: str) -> str:
    for ext in (".npz", ".txt.gz", ".gz", ".txt"):
        if path.endswith(ext):
            return f"{path[: -len(ext)]}.{direction}{ext}"
    return f"{path}.{direction}"


def _read_parallel(args) -> tuple[list[str], list[str]]:
    from clirkit.errors import ClirkitError
    from clirkit.fileio import iter_lines

    if args.aligned_by == "id":
        from clirkit.formats import read_documents

        src_ids, src_texts = read_documents(args.source)
        tgt_ids, tgt_texts = read_documents(args.target)
        target = dict(zip(tgt_ids, tgt_texts))
        pairs = [(s, target[i]) for i, s in zip(src_ids, src_texts) if i in target]
        if not pairs:
            raise ClirkitError(
                f"{args.source} and {args.target} share no id: give the two sides of one corpus, "
                f"their lines id TAB text with the same ids"
            )
        return [p[0] for p in pairs], [p[1] for p in pairs]
    source = [text for _, text in iter_lines(args.source, skip_blank=False)]
    target = [text for _, text in iter_lines(args.target, skip_blank=False)]
    if len(source) != len(target):
        raise ClirkitError(
            f"{args.source} has {len(source)} lines but {args.target} has {len(target)}; "
            f"line-aligned files must have the same number of lines: give the two sides of one "
            f"corpus (or --aligned-by id with id TAB text lines)"
        )
    if not source:
        raise ClirkitError(f"{args.source}: empty parallel corpus")
    return source, target


def run_train(args) -> int:
    from clirkit.errors import ClirkitError
    from clirkit.fileio import check_outputs, written_together
    from clirkit.langcheck import say_language_notices
    from clirkit.progress import say

    missing = [o for o, v in (("--source-lang", args.source_lang), ("--target-lang", args.target_lang)) if not v]
    if missing:
        raise ClirkitError(f"ttable train needs {' and '.join(missing)} (the tokenizers' languages, e.g. en, es)")
    directions = ["e2f", "f2e"] if args.direction == "both" else [args.direction]
    outputs = [_suffixed(args.output, d) for d in directions] if len(directions) > 1 else [args.output]
    inputs = {"--source": args.source, "--target": args.target}
    check_outputs({"-o": outputs}, {**inputs, **side_stopword_files(args)})
    source_texts, target_texts = _read_parallel(args)
    say(f"{len(source_texts)} sentence pairs", quiet=args.quiet)
    source, target = analyzers_of(args, args.source_lang, args.target_lang)
    analyzers = {"source": source, "target": target}
    tokens = {
        side: analyzers[side].tokenize_many(texts, quiet=args.quiet, jobs=args.jobs, desc=f"tokenizing {side}")
        for side, texts in (("source", source_texts), ("target", target_texts))
    }
    for side, path in (("source", args.source), ("target", args.target)):
        if not any(tokens[side]):
            raise ClirkitError(f"{path}: no line holds a word (after the analysis): nothing to learn from")
    say_language_notices(
        (
            (source_texts, source.lang, f"the source side of {args.source}"),
            (target_texts, target.lang, f"the target side of {args.target}"),
        )
    )
    with written_together():  # both tables, or neither (an error or a Ctrl-C while the second trains)
        done = [_train_one(args, tokens, analyzers, direction, out) for direction, out in zip(directions, outputs)]
    for line in done:
        say(line, quiet=args.quiet)
    return 0


def _train_one(args, tokens: dict, analyzers: dict, direction: str, out: str) -> str:
    """Train the table of ``direction`` (``e2f``: p(target word | source word), ``f2e`` the reverse) on the
    ``tokens`` of each side (``source``, ``target``) and write it to ``out``; returns the line that says so."""
    from clirkit.translation import save_table, train_table

    f_side, e_side = ("source", "target") if direction == "e2f" else ("target", "source")
    table = train_table(
        tokens[f_side],
        tokens[e_side],
        analyzers[f_side],
        analyzers[e_side],
        iterations=args.iterations,
        null=not args.no_null,
        quiet=args.quiet,
    )
    table.params["direction"] = direction
    save_table(table, out)
    _say_what_text_loses(args, table, out)
    return (
        f"{direction}: p({e_side} word | {f_side} word), {table.n_source} x {table.n_target} words, "
        f"{table.nnz} entries -> {out}"
    )


def run_from_alignments(args) -> int:
    from clirkit.errors import ClirkitError
    from clirkit.fileio import check_outputs
    from clirkit.progress import say
    from clirkit.translation.alignments import table_from_alignments

    missing = [o for o, v in (("--source-lang", args.source_lang), ("--target-lang", args.target_lang)) if not v]
    if missing:
        raise ClirkitError(
            f"ttable from-alignments needs {' and '.join(missing)} (the analyzers' languages, e.g. en, es)"
        )
    inputs = {"--source": args.source, "--target": args.target, "--alignments": args.alignments}
    check_outputs({"-o": args.output}, inputs)
    settings = analysis_settings(args, stopword_files=False)
    table = table_from_alignments(
        args.source,
        args.target,
        args.alignments,
        args.source_lang,
        args.target_lang,
        lowercase=not args.keep_case,
        reverse=args.reverse,
        **settings,
    )
    p = table.params
    say(
        f"ttable from-alignments: {p['n_sentence_pairs']:,} sentence pairs, {p['n_links']:,} links "
        f"({p['n_links_without_terms']:,} with a token without terms: dropped); unaligned tokens: "
        f"{p['n_source_tokens_unaligned']:,} source, {p['n_target_tokens_unaligned']:,} target",
        quiet=args.quiet,
    )
    _save(args, table)
    return 0


def run_show(args) -> int:
    from clirkit.analysis import Analyzer
    from clirkit.errors import ClirkitError
    from clirkit.progress import say
    from clirkit.tablefit import source_words_read
    from clirkit.translation import format_of

    empty = next((w for w in args.words if not w.strip()), None)
    if empty is not None:
        raise ClirkitError(f"WORD {empty!r} is empty: give the source word to look up, e.g. ttable show TABLE light")
    table = load_table_args(args, args.table, args.format)
    settings = table.params.get("source_analyzer")
    lang = table.params.get("source_lang")
    unanalyzed = lang and not settings and format_of(args.table, args.format) not in ("npz", "moses")
    readings = [("", table, None)]  # no language: as written or lowercased
    if settings:
        readings = [("", table, Analyzer.from_dict(settings).without_stopwords())]
    elif lang:  # a table that records no analysis (Moses text): its words read as DT and PSQ read them (tablefit)
        readings = source_words_read(table, lang)
    both, looked_up = False, [_looked_up(t, analyzer, args.words) for _, t, analyzer in readings]
    for i, word in enumerate(args.words):
        shown = [_shown_word(args, t, word, terms[i], a, unanalyzed) for (_, t, a), terms in zip(readings, looked_up)]
        lines = shown[0]
        if len(shown) > 1 and shown[0] != shown[1]:  # the index DT searches tells which: both, found ones first
            both = True
            labelled = [_labelled(lines, reading) for lines, (reading, _, _) in zip(shown, readings)]
            found_first = sorted(labelled, key=lambda lines: not any(line.startswith("  ") for line in lines))
            lines = [line for one in found_first for line in one]
        print("\n".join(lines))
    if both:
        say(
            f"note: {args.table}: DT reads the source words of a table this small as stems when its target words are "
            "stems, else as words: give --target-lang (their language) to show the one reading",
            quiet=args.quiet,
        )
    return 0


def _labelled(lines: list[str], reading: str) -> list[str]:
    """``lines`` of a word read as ``reading`` (``stems`` or ``words``), their heading saying so."""
    head, _, rest = lines[0].partition("\t(")
    return [f"{head}\t(read as {reading}, as DT reads them if the target words are {reading}; {rest}", *lines[1:]]


def _looked_up(table, analyzer, words: list[str]) -> list[list[str]]:
    """The terms each of ``words`` is looked up as in ``table``: as written or lowercased when ``analyzer`` (the
    table's source analysis) is None, else as DT and PSQ analyze a query word, joining the terms of a phrase the
    table holds."""
    from clirkit.translation.phrases import join_phrases

    if analyzer is None:
        return [[next((t for t in (w, w.lower()) if table.translations(t, 1)), w)] for w in words]
    return join_phrases([analyzer.tokenize(w) for w in words], table.source_vocab)


def _shown_word(args, table, word: str, terms: list[str], analyzer, unanalyzed: bool) -> list[str]:
    """The lines ``ttable show`` prints for ``word``, looked up as ``terms`` in ``table`` (``analyzer``: the table's
    source analysis, None when it records no language; ``unanalyzed``: a dictionary read without the documents'
    language)."""
    if not terms:  # DT and PSQ analyze a query the same way: the word adds nothing to it
        return [f"{word}\t(no term once analyzed: DT and PSQ drop it)"]
    if len(terms) == 1:
        heading = word if terms[0] == word else f"{word} -> {terms[0]}"
        return _term_lines(args, table, heading, terms[0], analyzer, unanalyzed)
    lines = [f"{word} -> {', '.join(terms)}\t({len(terms)} terms: DT and PSQ translate each)"]
    return lines + [line for term in terms for line in _term_lines(args, table, term, term, analyzer, unanalyzed)]


def _term_lines(args, table, shown: str, term: str, analyzer, unanalyzed: bool) -> list[str]:
    """``term``'s ``-n`` most probable translations in ``table`` under the heading ``shown``, or why it has none
    (``analyzer``, ``unanalyzed``: as :func:`_shown_word` takes them)."""
    options = table.translations(term, args.n)
    if options:
        tied = table.tied_best(term)  # DT takes the one rarest in the collection it searches, which show cannot know
        ties = f"; the first {tied} tie: DT takes the rarest of them in the index it searches" if tied > 1 else ""
        n = len(table.translations(term))
        heading = f"{shown}\t({n} translation{'' if n == 1 else 's'}{ties})"
        return [heading, *(f"  {e}\t{p:.6f}" for e, p in options)]
    if analyzer is None:
        return [
            f"{shown}\t(not in the table as written or lowercased; it records no analysis: --source-lang "
            "LANG reads its words as DT and PSQ do)"
        ]
    if unanalyzed:  # dt and psq read such a dictionary with both languages
        return [f"{shown}\t(not in the dictionary read without --target-lang: give it to read it as dt does)"]
    return [f"{shown}\t(no translations in the table: DT and PSQ pass it through unchanged)"]


def run_prune(args) -> int:
    from clirkit.analysis import Analyzer
    from clirkit.cli.common import stopword_option
    from clirkit.cli.params import params_of
    from clirkit.errors import ClirkitError
    from clirkit.fileio import check_outputs
    from clirkit.psq import SIDE_DEFAULTS
    from clirkit.systems import PSQ
    from clirkit.tablefit import stopword_terms
    from clirkit.translation import prune

    p = params_of(args)
    PSQ(**p).check_params()
    # TABLE itself may be the output: pruning in place, the table read whole before the pruned one replaces it
    check_outputs({"-o": args.output}, {"--target-stopwords": listed_file(args.target_stopwords)})
    p = {k: SIDE_DEFAULTS["queries"][k] if v == "auto" else v for k, v in p.items()}  # a table of the queries
    table = load_table_args(args, args.table, args.format, require_languages=True)
    stop = stopword_option(args.target_stopwords, "--target-stopwords")
    settings = table.params.get("target_analyzer")
    if stop == "snowball" and not settings:
        raise ClirkitError(
            f"--target-stopwords snowball: {args.table} does not record the analysis of its target "
            f"terms; give a FILE of target terms"
        )
    if stop is not None and settings:  # the words as the table's target terms are analyzed (and as given)
        stop = sorted(stopword_terms(stop, Analyzer.from_dict(settings)))
    try:
        pruned = prune(
            table,
            min_prob=p["min_prob"],
            cumulative=p["cumulative"] if p["cumulative"] < 1 else None,
            max_options=p["max_options"],
            target_stopwords=stop,
        )
    except ValueError as exc:
        raise ClirkitError(str(exc)) from None
    _save(args, pruned)
    return 0


def run_convert(args) -> int:
    from clirkit.fileio import check_outputs

    check_outputs({"-o": args.output}, {"TABLE": args.table})
    _save(args, load_table_args(args, args.table, args.format, require_languages=True))
    return 0


def _save(args, table) -> None:
    """Write ``table`` to ``args.output``, saying what Moses text cannot keep."""
    from clirkit.errors import counted
    from clirkit.progress import say
    from clirkit.translation import save_table

    if not str(args.output).endswith(".npz"):
        table, phrases = table.without_phrases()
        if phrases:
            say(
                f"ttable {args.action}: {args.output} is Moses text, which holds single words: {phrases:,} source "
                f"phrases not written (write .npz to keep them)",
                quiet=args.quiet,
            )
    save_table(table, args.output)
    _say_what_text_loses(args, table, args.output)
    say(
        f"ttable {args.action}: {table.n_source:,} x {table.n_target:,} words, "
        f"{counted(table.nnz, 'entry', 'entries')} -> {args.output}",
        quiet=args.quiet,
    )


def _say_what_text_loses(args, table, output) -> None:
    """Say on stderr what a table written to ``output`` as Moses text does not keep (its languages, its analysis,
    a dictionary's ranks), unless ``output`` is .npz."""
    from clirkit.progress import say

    if str(output).endswith(".npz"):
        return
    languages = table.params.get("source_lang") or table.params.get("target_lang")
    analysis = table.params.get("source_analyzer") or table.params.get("target_analyzer")
    lost = [
        what
        for what, kept in (
            ("languages", languages),
            ("analysis (dt and psq read its words by how they meet the index, and say how)", analysis),
            ("dictionary ranks", table.ranks is not None),
        )
        if kept
    ]
    if lost:
        say(
            f"ttable {args.action}: {output} is Moses text: the table's {' and '.join(lost)} are not kept (write "
            f".npz to keep them)",
            quiet=args.quiet,
        )
