"""The import graph of the package: subpackages in layers, no cycle, no private name shared.

Every module's imports are read from its source (``ast``; imports inside functions count, as
they are dependencies too). The layers below are the architecture: a module may import its own
layer and the layers below it, never one above, and two parts of one layer do not import each
other. Each subpackage's ``__init__`` says in its docstring, on a line that starts with "May
import:", which parts it may import; the test holds that line to the layers, so the docstrings
cannot drift from the rule they state.
"""

import ast
import re
from pathlib import Path

import pytest

from hiddenbn.experiments.papers import BY_NAME

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "hiddenbn"

#: The parts of the package, lowest first; a part is a subpackage or a top-level module.
LAYERS = (
    ("errors",),
    ("util",),
    ("models",),
    ("data",),
    ("inference",),
    ("dimension",),
    ("scores",),
    ("learning",),
    ("ebnc", "interaction", "regression"),
    ("reports",),
    ("commands",),
    ("estimators", "experiments"),
    ("__init__",),  # the package: its lazy exports and its version
    ("cli", "jit_cache"),
    ("__main__",),
)
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}
#: Code outside the package that must not reach into its private names either (tests may: a
#: test of a module's internals is part of that module).
CALLERS = [REPO / "benchmarks", REPO / "workflow" / "scripts", REPO / "tools"]


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """``hiddenbn.learning.em`` for ``src/hiddenbn/learning/em.py`` (a package: its name)."""
    parts = ("hiddenbn",) + path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))
           if "__pycache__" not in path.parts}


def part_of(module: str) -> str:
    """The part (a key of :data:`RANK`) a module of the package belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports(tree: ast.AST):
    """``(module, names, line)`` of every absolute import of the package in ``tree``: an
    ``import a.b`` gives ``("a.b", [], line)``, a ``from a import b, c`` gives ``("a", ["b",
    "c"], line)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level \
                and node.module.split(".")[0] == "hiddenbn":
            yield node.module, [alias.name for alias in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "hiddenbn":
                    yield alias.name, [], node.lineno


def dependencies(tree: ast.AST, modules=MODULES) -> dict:
    """The modules of the package that ``tree`` imports, each with the line of its first
    import: ``from a import b`` is an import of ``a.b`` when that is a module, else of ``a``."""
    found = {}
    for module, names, line in imports(tree):
        targets = [f"{module}.{name}" for name in names if f"{module}.{name}" in modules]
        if len(targets) < len(names) or not names:
            targets.append(module)
        for target in targets:
            found.setdefault(target, line)
    return found


def graph(modules=MODULES) -> dict:
    """Module -> {imported module: line} over the whole package."""
    return {name: dependencies(ast.parse(path.read_text()), modules)
            for name, path in modules.items()}


def cycles(edges: dict) -> list:
    """Every strongly connected set of more than one module (or a module importing itself):
    Tarjan's algorithm, written out iteratively."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]

    def visit(start):
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1 or node in edges.get(node, ()):
                        found.append(sorted(members))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def layer_violations(edges: dict) -> list:
    """``module:line imports target`` for each import of a higher layer, or of another part of
    the same layer."""
    found = []
    for module, targets in sorted(edges.items()):
        part = part_of(module)
        for target, line in sorted(targets.items()):
            other = part_of(target)
            if other != part and RANK[other] >= RANK[part]:
                found.append(f"{module}:{line} imports {target} ({other} is not below {part})")
    return found


def private_names(path: Path, modules=MODULES) -> list:
    """``file:line name`` for each private name (``_x``, not ``__x__``) of the package that
    ``path`` uses from another module: imported by name, or read from an imported module."""
    tree = ast.parse(path.read_text())
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level \
                and node.module.split(".")[0] == "hiddenbn":
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif private(alias.name):
                    found.append(f"{path}:{node.lineno} {node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            base = ast.unparse(node.value)
            module = aliases.get(base, base if base in modules else None)
            if module is not None:
                found.append(f"{path}:{node.lineno} {module}.{node.attr}")
    return found


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def declared_imports(docstring: str) -> set:
    """The parts named on the docstring's "May import:" line (and the lines that continue
    it, up to a blank line)."""
    match = re.search(r"^May import:(.*?)(?:\n\s*\n|\Z)", docstring, re.MULTILINE | re.DOTALL)
    assert match, "no 'May import:' line"
    return set(re.findall(r"hiddenbn\.(\w+)", match.group(1)))


def test_every_part_of_the_package_has_a_layer():
    parts = {part_of(module) for module in MODULES}
    assert parts == set(RANK), f"unplaced: {sorted(parts - set(RANK))}, " \
                               f"gone: {sorted(set(RANK) - parts)}"


def test_no_module_imports_a_higher_layer():
    violations = layer_violations(graph())
    assert not violations, "\n".join(violations)


def test_the_import_graph_has_no_cycle():
    found = cycles({module: set(targets) for module, targets in graph().items()})
    assert not found, found


@pytest.mark.parametrize("path", sorted(
    [*MODULES.values(), *(p for folder in CALLERS for p in folder.rglob("*.py"))]),
    ids=lambda path: str(path.relative_to(REPO)))
def test_no_private_name_crosses_a_module(path):
    assert not private_names(path), private_names(path)


@pytest.mark.parametrize("part", sorted(
    name for name in RANK if (PACKAGE / name / "__init__.py").is_file()))
def test_a_subpackage_says_what_it_holds_and_what_it_may_import(part):
    docstring = ast.get_docstring(ast.parse((PACKAGE / part / "__init__.py").read_text()))
    assert docstring and len(docstring.split("\n\n")[0]) > 20, "no summary of what it holds"
    below = {other for other, rank in RANK.items() if rank < RANK[part]}
    assert declared_imports(docstring) == below
    # the paper modules are named by the registry, which the docstring of experiments names
    modules = sorted(p.stem for p in (PACKAGE / part).glob("*.py")
                     if p.stem != "__init__" and p.stem not in BY_NAME)
    unnamed = [m for m in modules if f"``{m}``" not in docstring and f".{m}`" not in docstring]
    assert not unnamed, f"modules the docstring does not name: {unnamed}"


# --- the checks themselves can fail ---------------------------------------------------------
def test_an_import_of_a_higher_layer_is_found():
    tree = ast.parse("from hiddenbn.learning.em import fit\n")
    edges = {"hiddenbn.models.network": dependencies(tree)}
    assert layer_violations(edges) == [
        "hiddenbn.models.network:1 imports hiddenbn.learning.em (learning is not below models)"]
    sideways = {"hiddenbn.ebnc.model": dependencies(ast.parse(
        "def f():\n    from hiddenbn.interaction import noisy_max\n"))}
    assert layer_violations(sideways) == [
        "hiddenbn.ebnc.model:2 imports hiddenbn.interaction.noisy_max (interaction is not "
        "below ebnc)"]


def test_a_cycle_is_found():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert sorted(cycles(edges)) == [["a", "b", "c"], ["e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_private_name_is_found(tmp_path):
    path = tmp_path / "caller.py"
    path.write_text("from hiddenbn.learning.em import _final_phase, fit\n"
                    "from hiddenbn.data import sampling as s\n"
                    "import hiddenbn.learning.em\n"
                    "s._flatten(1)\nhiddenbn.learning.em._check_search()\ns.__doc__\n")
    assert [line.split(" ", 1)[1] for line in private_names(path)] == [
        "hiddenbn.learning.em._final_phase", "hiddenbn.data.sampling._flatten",
        "hiddenbn.learning.em._check_search"]


def test_a_docstring_that_names_another_layer_is_found():
    assert declared_imports("Holds x.\n\nMay import: hiddenbn.errors, hiddenbn.util.\n") == \
        {"errors", "util"}
    with pytest.raises(AssertionError):
        declared_imports("Holds x, and names no layer.")
