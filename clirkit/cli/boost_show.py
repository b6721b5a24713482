"""``clirkit boost-show MODEL``: print a BoostCLIR phrase table like the slides ("t, h_t, w_t")."""

from __future__ import annotations

from clirkit.cli.common import add_verb, positive_int


def add_parser(sub) -> None:
    p = add_verb(sub, "boost-show", "print a BoostCLIR model: the rounds (t, h_t, w_t) or the top entries", run)
    p.add_argument("model", help="model file written by boost-train")
    p.add_argument("-n", type=positive_int, default=50, help="rows to print")
    p.add_argument("--bag", type=positive_int, help="bag whose rounds are printed (1-based; default: 1)")
    p.add_argument(
        "--entries",
        action="store_true",
        help="print the averaged table's entries by weight (source, target, weight) instead of rounds",
    )
    p.add_argument(
        "--negative",
        action="store_true",
        help="with --entries: the most negative entries (a model boosted from a base ranker uses them "
        "to correct the base system's over-weighted translations)",
    )


def run(args) -> int:
    from clirkit.boost import BoostRanker
    from clirkit.errors import ClirkitError

    if args.negative and not args.entries:
        raise ClirkitError("--negative goes with --entries")
    if args.bag is not None and args.entries:
        raise ClirkitError(
            "--bag picks the bag whose rounds are printed, and --entries prints the bags' averaged table instead: "
            "give one of them"
        )
    bag = args.bag or 1
    model = BoostRanker.load(args.model).model_  # its recorded hyper-parameters checked, as in Python
    if args.entries:
        print("source\ttarget\tweight")
        for src, tgt, w in model.top_entries(args.n, negative=args.negative):
            print(f"{src}\t{tgt}\t{w:.4f}")
        return 0
    n_bags = int(model.history["bag"].max()) + 1 if len(model.history["bag"]) else 0
    if not 1 <= bag <= max(n_bags, 1):
        raise ClirkitError(f"--bag must be in 1..{n_bags}, got {bag}")
    print("t\th_t\tw_t")
    for _, t, pairs, w in model.rounds_table(args.n, bag=bag - 1):
        print(f"{t}\t{pairs}\t{w:.2f}")
    return 0
