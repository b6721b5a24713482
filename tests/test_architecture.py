"""The shape of the code (issue 38): no import cycle among clirkit's modules (imports inside functions count, those
under ``if TYPE_CHECKING:`` do not), no module over 600 lines, no verb importing another verb."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "clirkit"
MAX_LINES = 600


def modules() -> dict[str, Path]:
    """``{dotted name: file}`` of every module of the package (a package by its ``__init__.py``)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes inside ``if TYPE_CHECKING:`` blocks (not imported when the code runs)."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    return skipped


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The clirkit modules ``name`` imports when its code runs, at the top or inside functions (``from P import
    m`` counts the module P.m when there is one, else P)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "clirkit")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            if base.split(".")[0] != "clirkit":
                continue
            for alias in node.names:
                out.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {m for m in out if m in known and m != name}


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_among_clirkits_modules():
    found = cycles(import_graph())
    graph = import_graph()
    shown = [f"{c}: " + "; ".join(f"{m} -> {', '.join(sorted(graph[m] & set(c)))}" for m in c) for c in found]
    assert not found, "\n".join(shown)


def test_no_module_over_600_lines():
    long = {
        name: n
        for name, path in modules().items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long


def test_no_verb_imports_another_verb():
    from clirkit.cli.verbs import VERBS

    known = modules()
    verbs = {f"clirkit.cli.{module}" for module, _ in VERBS.values()}
    crossing = {name: sorted(imports_of(name, known[name], known) & (verbs - {name})) for name in verbs}
    assert not {k: v for k, v in crossing.items() if v}, crossing


FOUNDATION = {
    "errors",
    "progress",
    "analysis",
    "npzio",
    "npzchecks",
    "fileio",
    "parallel",
    "run",
    "jit",
    "constraints",
    "sortedunique",
}
SCORERS = {"bm25", "lm", "shardsearch", "kernels", "topk", "rankmerge", "weightings"}
STATISTICS = {"index", "shards", "shardfiles", "indexkinds", "stats"}


def test_the_retrieval_engine_is_a_layer_and_its_index_imports_no_scorer():
    """clirkit.retrieval imports nothing above it (the cross-language methods, the systems, the verbs): only
    itself and the foundation modules; its index and collection statistics import no scorer."""
    graph = import_graph()
    layer = {m: deps for m, deps in graph.items() if m.startswith("clirkit.retrieval.")}
    assert {m.rpartition(".")[2] for m in layer} >= STATISTICS | SCORERS
    allowed = {f"clirkit.{m}" for m in FOUNDATION} | set(layer) | {"clirkit.retrieval"}
    above = {m: sorted(deps - allowed) for m, deps in layer.items() if deps - allowed}
    assert not above, above
    scorers = {f"clirkit.retrieval.{m}" for m in SCORERS}
    for name in STATISTICS:
        assert not graph[f"clirkit.retrieval.{name}"] & scorers, name
