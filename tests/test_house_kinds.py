"""A house a new engineer can live in (issue 38): no module asks an index or a system its type outside the registry
of index kinds and the one place a boosted ranker's base becomes a system; every verb's ``run`` is short. The
sources are read with ast; the index kinds answer ``translated`` themselves."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "clirkit"
INDEX_KINDS = {"Index", "ShardedIndex", "ProjectedIndex", "ShardedProjectedIndex", "TRANSLATED"}
REGISTRY = "retrieval/indexkinds.py"
# where a System's type may be asked: the contract (describing nested systems), the one conversion of a boosted
# ranker's base, and an argument check of the PyTerrier adapter (a wrong type given)
SYSTEM_TYPE_ASKED = {"estimator.py", "boost/base.py", "pyterrier.py"}
MAX_RUN_LINES = 65


def sources() -> dict[str, ast.Module]:
    """``{path relative to the package: parsed module}`` of every module of clirkit."""
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def type_names(node: ast.expr) -> set[str]:
    """The class names a type argument of isinstance/issubclass names (a name, an attribute, or a tuple of them)."""
    if isinstance(node, ast.Tuple):
        return set().union(*(type_names(e) for e in node.elts))
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return set()


def type_questions(tree: ast.Module) -> list[tuple[int, set[str]]]:
    """``(line, class names)`` of each isinstance/issubclass call of ``tree``."""
    return [
        (node.lineno, type_names(node.args[1]))
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("isinstance", "issubclass")
        and len(node.args) == 2
    ]


def system_classes(trees: dict[str, ast.Module]) -> set[str]:
    """The names of System and of every class of the package deriving from it (directly or not), by their bases."""
    bases = {
        node.name: type_names(ast.Tuple(elts=node.bases)) if node.bases else set()
        for tree in trees.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    found = {"System"}
    while True:
        more = {name for name, of in bases.items() if of & found} - found
        if not more:
            return found
        found |= more


def test_the_type_finders_see_a_question_on_an_index_kind_and_a_system_subclass():
    tree = ast.parse("isinstance(index, TRANSLATED)\nif isinstance(b, (Run, m.System)): pass\nclass P(Q): pass")
    assert type_questions(tree) == [(1, {"TRANSLATED"}), (2, {"Run", "System"})]
    trees = {"a.py": ast.parse("class Q(System): pass\nclass P(Q): pass\nclass R: pass")}
    assert system_classes(trees) == {"System", "Q", "P"}


def test_no_module_asks_an_index_its_kind_outside_the_registry():
    asked = {
        f"{path}:{line}": sorted(names & INDEX_KINDS)
        for path, tree in sources().items()
        if path != REGISTRY
        for line, names in type_questions(tree)
        if names & INDEX_KINDS
    }
    assert not asked, asked


def test_no_module_asks_a_system_its_type_but_the_contract_and_the_base_conversion():
    trees = sources()
    systems = system_classes(trees)
    assert {"BoostRanker", "RunFile", "HeldRun", "Fusion"} <= systems
    asked = {
        f"{path}:{line}": sorted(names & systems)
        for path, tree in trees.items()
        if path not in SYSTEM_TYPE_ASKED
        for line, names in type_questions(tree)
        if names & systems
    }
    assert not asked, asked


def test_each_verbs_run_is_about_sixty_lines():
    """Each verb's run function (``run``; of a verb made of actions, each ``run_ACTION``) parses, builds a system,
    calls it and writes: at most 65 lines, its checks and assembly in the modules that own them."""
    from clirkit.cli.verbs import VERBS

    lengths = {}
    for module, _ in VERBS.values():
        tree = ast.parse((PACKAGE / "cli" / f"{module}.py").read_text(encoding="utf-8"))
        runs = [
            n for n in tree.body if isinstance(n, ast.FunctionDef) and (n.name == "run" or n.name.startswith("run_"))
        ]
        assert runs, module
        lengths.update({f"{module}.{n.name}": n.end_lineno - n.lineno + 1 for n in runs})
    assert {"psq.run", "eval.run", "boost_train.run", "ttable.run_train"} <= set(lengths)
    long = {name: n for name, n in lengths.items() if n > MAX_RUN_LINES}
    assert not long, long


def test_each_index_kind_says_whether_its_documents_are_translated():
    from clirkit.docpsq import ProjectedIndex, ShardedProjectedIndex
    from clirkit.retrieval.index import Index
    from clirkit.retrieval.shards import ShardedIndex

    assert [cls.translated for cls in (Index, ShardedIndex, ProjectedIndex, ShardedProjectedIndex)] == [
        False,
        False,
        True,
        True,
    ]
    assert [cls.sharded for cls in (Index, ShardedIndex, ProjectedIndex, ShardedProjectedIndex)] == [
        False,
        True,
        False,
        True,
    ]


@pytest.mark.parametrize(
    "kind, translated",
    [
        ("index", False),
        ("sharded-index", False),
        ("projected-index", True),
        ("sharded-projected-index", True),
        (None, False),
        ("table", False),
    ],
)
def test_the_registry_says_whether_a_file_of_a_kind_holds_translated_documents(kind, translated):
    from clirkit.retrieval import indexkinds

    assert indexkinds.translated(kind) is translated


@pytest.mark.parametrize("shards", [None, 2], ids=["one-file", "sharded"])
def test_an_index_translated_before_is_taken_as_it_is_and_refuses_a_table(index, shards):
    """The question the index answers (``translated``) takes the place of its type, in one file or in shards."""
    from clirkit.docpsq import ShardedProjectedIndex, translated
    from clirkit.errors import ClirkitError
    from clirkit.translation import TranslationTable

    reverse = TranslationTable.from_triples(
        ["luz", "dios"], ["light", "god"], [1.0, 1.0], params={"source_lang": "es", "target_lang": "en"}
    )
    kw = dict(lang="en", min_prob=0.0, cumulative=None, max_options=None)
    made = translated(index, reverse, **kw)
    if shards:
        made = ShardedProjectedIndex.split(made, shards)
    assert made.translated and not index.translated
    assert translated(made, None, **kw) is made
    with pytest.raises(ClirkitError, match="^the index is already translated into the queries' language"):
        translated(made, reverse, **kw)
