"""The import graph of the fastrank package, read from its sources (AST).

Each edge is an import that runs: at module level or inside a function,
but not under ``if TYPE_CHECKING:`` (those run only for type checkers). A
``from package import name`` where ``name`` is a submodule is an edge to the
submodule. Compiled sources (.pyx, .pxi) are read for their imports too, under
the name of the module they are built into; a ``cimport`` of a fastrank
module counts as an import of it (the compiled module loads it).
"""
from __future__ import annotations

import ast
import pathlib
import re
from typing import Dict, Set

import fastrank

PACKAGE = pathlib.Path(fastrank.__file__).parent


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> Set[int]:
    guarded: Set[int] = set()
    for block in ast.walk(tree):
        if isinstance(block, ast.If):
            test = block.test
            name = getattr(test, "id", None) or getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                guarded.update(id(node) for stmt in block.body for node in ast.walk(stmt))
    return guarded


def _is_module(name: str) -> bool:
    rel = pathlib.Path(*name.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").exists() or (PACKAGE / rel / "__init__.py").exists() \
        or any((PACKAGE / rel).parent.glob(rel.name + ".*.so")) or (PACKAGE / rel).with_suffix(".pyx").exists()


def imports_of_source(source: str, name: str, is_package: bool) -> Set[str]:
    tree = ast.parse(source)
    guarded = _type_checking_nodes(tree)
    found: Set[str] = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("fastrank"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("fastrank"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if _is_module(sub) else target)
    found.discard(name)
    return found


_CYTHON_IMPORT = re.compile(r"^\s*(from\s+fastrank[\w.]*\s+c?import\s+[^\n(]+(\([^)]*\))?|c?import\s+fastrank[\w.]*)",
                            re.M)


def import_graph() -> Dict[str, Set[str]]:
    """module → the fastrank modules it imports when it runs."""
    graph: Dict[str, Set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        graph[name] = imports_of_source(path.read_text(encoding="utf-8"), name, path.name == "__init__.py")
    # The compiled modules: their imports and cimports.
    compiled = {"fastrank._core": [PACKAGE / "_core.pyx", *PACKAGE.glob("structures/*.pxi"),
                                   *PACKAGE.glob("engine/native/*.pxi")],
                "fastrank.leaderboard._entries": [PACKAGE / "leaderboard" / "_entries.pyx"],
                "fastrank.natives._board": [PACKAGE / "natives" / "_board.pyx"],
                "fastrank.service._totals": [PACKAGE / "service" / "_totals.pyx"]}
    for name, paths in compiled.items():
        edges: Set[str] = set()
        for path in paths:
            text = "\n".join(m.group(1).replace("(", "").replace(")", "").replace("\n", " ").replace("cimport", "import")
                             for m in _CYTHON_IMPORT.finditer(path.read_text(encoding="utf-8")))
            edges |= imports_of_source(text, name, False)
        graph[name] = edges
    return graph


def cycles(graph: Dict[str, Set[str]]) -> list:
    """The strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: list = []
    on: Set[str] = set()
    out: list = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def private_imports() -> list:
    """(module, imported module, name) for every ``from X import _name`` where
    ``_name`` is a private member of another module (not a module itself)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fastrank") and not node.level:
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__") \
                            and not _is_module(f"{node.module}.{alias.name}"):
                        found.append((name, node.module, alias.name))
    return found
