"""``clirkit ttable {train,show,prune,convert}``: make, inspect, prune and convert translation tables."""
from __future__ import annotations

import argparse

from clirkit.cli.common import HelpFormatter, add_jobs, add_language_options, add_quiet, add_verb, positive_int

TABLE_FORMAT_HELP = ("table format: auto (npz by content, .index = freedict, .dict = muse, else moses "
                     "'e f p' lines), moses, npz, pairs ('source target' lines), muse ('target @ source'), "
                     "freedict (dictd .index beside .dict.dz)")


def add_table_format(p: argparse.ArgumentParser, flag: str = "--table-format") -> None:
    from clirkit.translation.tableio import FORMATS

    p.add_argument(flag, choices=FORMATS, default="auto", help=TABLE_FORMAT_HELP)


def add_parser(sub) -> None:
    p = add_verb(sub, "ttable", "translation tables p(e|f): train (IBM Model 1), show, prune, convert",
                 lambda args: args.parser.error("choose an action: train, show, prune or convert"))
    p.set_defaults(parser=p)
    actions = p.add_subparsers(dest="action", metavar="ACTION")

    t = actions.add_parser("train", help="train p(target|source) with IBM Model 1 on a parallel corpus",
                           description="Train a lexical table with IBM Model 1 (EM from the uniform table, "
                                       "so deterministic: no seed). Output format by name: .npz = compact, "
                                       "anything else = Moses 'e f p' lines (.gz compressed).",
                           formatter_class=HelpFormatter)
    t.add_argument("--source", required=True, help="source-language sentences (one per line, or 'id TAB text' "
                                                   "with --aligned-by id)")
    t.add_argument("--target", required=True, help="target-language sentences, aligned with --source")
    t.add_argument("-o", "--output", required=True,
                   help="table file; with --direction both, NAME.e2f.EXT and NAME.f2e.EXT are written")
    t.add_argument("--direction", choices=("e2f", "f2e", "both"), default="e2f",
                   help="e2f = p(target|source) (rows are source words, what DT/PSQ use), "
                        "f2e = p(source|target), both = the two")
    t.add_argument("--iterations", type=int, default=5, help="EM iterations")
    t.add_argument("--no-null", action="store_true", help="no NULL source word")
    add_language_options(t)
    t.add_argument("--aligned-by", choices=("line", "id"), default="line",
                   help="line: line i of both files is a pair; id: 'id TAB text' files joined on id")
    add_jobs(t)
    add_quiet(t)
    t.set_defaults(func=run_train)

    s = actions.add_parser("show", help="print a word's translations with their probabilities",
                           formatter_class=HelpFormatter)
    s.add_argument("table", help="table file")
    s.add_argument("words", nargs="+", metavar="WORD", help="source word(s)")
    s.add_argument("-n", type=positive_int, default=10, help="translations to show per word")
    add_table_format(s, "--format")
    s.set_defaults(func=run_show)

    r = actions.add_parser("prune", help="prune a table as PSQ does (minimum probability, cumulative mass, at most M options)",
                           formatter_class=HelpFormatter)
    r.add_argument("table", help="table file")
    r.add_argument("-o", "--output", required=True, help="pruned table (.npz or Moses text)")
    add_prune_options(r)
    add_quiet(r)
    add_table_format(r, "--format")
    r.set_defaults(func=run_prune)

    c = actions.add_parser("convert", help="convert between table formats (or a dictionary into a table)",
                           formatter_class=HelpFormatter)
    c.add_argument("table", help="table or dictionary file")
    c.add_argument("-o", "--output", required=True, help="output: .npz = compact, else Moses 'e f p' lines")
    add_table_format(c, "--format")
    c.add_argument("--keep-case", action="store_true", help="do not lowercase dictionary words")
    c.set_defaults(func=run_convert)


def add_prune_options(p: argparse.ArgumentParser):
    """PSQ's pruning options (SPEC §4 step 2), with :class:`clirkit.systems.PSQ`'s defaults; returns the group."""
    from clirkit.cli.params import add_param
    from clirkit.systems import PSQ

    g = p.add_argument_group("pruning (as PSQ prunes its table)")
    add_param(g, PSQ, "min_prob", "--min-prob", type=float, help="L: drop options with p < L")
    add_param(g, PSQ, "cumulative", "--cumulative", type=float,
              help="C: keep the most probable options until their sum reaches C (1 keeps all)")
    add_param(g, PSQ, "max_options", "--max-options", type=int, help="M: at most M options per word")
    g.add_argument("--target-stopwords", metavar="FILE", default=None,
                   help="file of target stopwords to drop (one per line)")
    return g


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
            raise ClirkitError(f"{args.source} and {args.target} share no id")
        return [p[0] for p in pairs], [p[1] for p in pairs]
    source = [text for _, text in iter_lines(args.source, skip_blank=False)]
    target = [text for _, text in iter_lines(args.target, skip_blank=False)]
    if len(source) != len(target):
        raise ClirkitError(f"{args.source} has {len(source)} lines but {args.target} has {len(target)}; "
                           f"line-aligned files must have the same number of lines")
    if not source:
        raise ClirkitError(f"{args.source}: empty parallel corpus")
    return source, target


def run_train(args) -> int:
    from clirkit.analysis import Analyzer
    from clirkit.errors import ClirkitError
    from clirkit.progress import say
    from clirkit.translation import save_table, train_table

    if args.iterations < 0:
        raise ClirkitError(f"--iterations must be >= 0, got {args.iterations}")
    missing = [o for o, v in (("--source-lang", args.source_lang), ("--target-lang", args.target_lang)) if not v]
    if missing:
        raise ClirkitError(f"ttable train needs {' and '.join(missing)} (the tokenizers' languages, e.g. en, es)")
    source_texts, target_texts = _read_parallel(args)
    say(f"{len(source_texts)} sentence pairs", quiet=args.quiet)
    analyzers = {"source": Analyzer(args.source_lang), "target": Analyzer(args.target_lang)}
    tokens = {side: analyzers[side].tokenize_many(texts, quiet=args.quiet, jobs=args.jobs,
                                                  desc=f"tokenizing {side}")
              for side, texts in (("source", source_texts), ("target", target_texts))}
    directions = ["e2f", "f2e"] if args.direction == "both" else [args.direction]
    for direction in directions:
        f_side, e_side = ("source", "target") if direction == "e2f" else ("target", "source")
        table = train_table(tokens[f_side], tokens[e_side], analyzers[f_side], analyzers[e_side],
                            iterations=args.iterations, null=not args.no_null, quiet=args.quiet)
        table.params["direction"] = direction
        out = _suffixed(args.output, direction) if len(directions) > 1 else args.output
        save_table(table, out)
        say(f"{direction}: p({e_side} word | {f_side} word), {table.n_source} x {table.n_target} words, "
            f"{table.nnz} entries -> {out}", quiet=args.quiet)
    return 0


def run_show(args) -> int:
    from clirkit.translation import load_table

    table = load_table(args.table, args.format)
    for word in args.words:
        options = table.translations(word, args.n)
        total = len(table.translations(word))
        if not options:
            print(f"{word}\t(no translations in the table: DT and PSQ pass it through unchanged)")
            continue
        print(f"{word}\t({total} translations)")
        for e, p in options:
            print(f"  {e}\t{p:.6f}")
    return 0


def run_prune(args) -> int:
    from clirkit.analysis import read_stopwords
    from clirkit.errors import ClirkitError
    from clirkit.translation import load_table, prune, save_table

    from clirkit.cli.params import params_of

    table = load_table(args.table, args.format)
    stop = read_stopwords(args.target_stopwords) if args.target_stopwords else None
    p = params_of(args)
    try:
        pruned = prune(table, min_prob=p["min_prob"], cumulative=p["cumulative"] if p["cumulative"] < 1 else None,
                       max_options=p["max_options"], target_stopwords=stop)
    except ValueError as exc:
        raise ClirkitError(str(exc)) from None
    save_table(pruned, args.output)
    return 0


def run_convert(args) -> int:
    from clirkit.translation import load_table, save_table

    save_table(load_table(args.table, args.format, lowercase=not args.keep_case), args.output)
    return 0
