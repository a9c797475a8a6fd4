"""The package's layers (docs/design.md): every import of a hexjax module points to its own
package or a lower layer, packages of one layer do not import each other, and no modules import
each other in a cycle. Read from the source with `ast`, every import counted (also those inside
functions)."""

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "hexjax"

LAYERS = {
    "hexjax.games": 0,
    "hexjax.base": 1,
    "hexjax.sharding": 1,
    "hexjax.alphazero": 2,
    "hexjax.baselines": 3,
    "hexjax.evaluation": 3,
    "hexjax.training": 4,
    "hexjax.play": 5,
    "hexjax.commands": 6,
}


def _module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """{module: the hexjax modules it imports}."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("hexjax"))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hexjax"):
                for alias in node.names:  # `from hexjax.x import y`: y may be a module
                    candidate = f"{node.module}.{alias.name}"
                    found.add(candidate if candidate in modules else node.module)
        graph[name] = found & set(modules)
    return graph


def _home(module: str) -> str | None:
    """The layered unit a module belongs to. The package root (hexjax/__init__.py: the games'
    public names and the version) counts as the games' layer, which the test below holds."""
    if module == "hexjax":
        return "hexjax.games"
    for unit in sorted(LAYERS, key=len, reverse=True):
        if module == unit or module.startswith(unit + "."):
            return unit
    return None


def test_every_module_has_a_layer():
    homeless = [m for m in _imports() if _home(m) is None]
    assert not homeless, f"modules outside every layer (add them to docs/design.md): {homeless}"


def test_imports_point_down():
    upward = []
    for module, imported in _imports().items():
        home = _home(module)
        for target in imported:
            there = _home(target)
            ok = there == home or LAYERS[there] < LAYERS[home]
            if not ok:
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that do not point down:\n" + "\n".join(sorted(upward))


def test_no_import_cycles():
    graph = _imports()
    done, active, cycles = set(), [], []

    def visit(module):
        if module in active:
            cycles.append(active[active.index(module) :] + [module])
            return
        if module in done:
            return
        active.append(module)
        for target in sorted(graph[module]):
            # A package's __init__ re-exporting its submodules is not a cycle of logic.
            if not (module.startswith(target + ".") and _is_package(target)):
                visit(target)
        active.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _is_package(module: str) -> bool:
    return (PACKAGE.parent / module.replace(".", "/") / "__init__.py").exists()


@pytest.mark.parametrize("module", ["hexjax.play.agent", "hexjax.commands.evaluate"])
def test_loading_an_agent_does_not_import_the_training_loop(module):
    """Restoring a run is `hexjax.training.restore`; the host loop stays out of play."""
    graph = _imports()
    reached, todo = set(), [module]
    while todo:
        current = todo.pop()
        for target in graph[current] - reached:
            reached.add(target)
            todo.append(target)
    assert "hexjax.training.loop" not in reached


def test_package_names_do_not_shadow_their_modules():
    """`from hexjax.evaluation import arena` must give the module, not a function of it."""
    import importlib

    shadowed = []
    for init in PACKAGE.rglob("__init__.py"):
        package = importlib.import_module(_module_name(init))
        for name in getattr(package, "__all__", []):
            if (init.parent / f"{name}.py").exists() and not hasattr(
                getattr(package, name), "__file__"
            ):
                shadowed.append(f"{package.__name__}.{name}")
    assert not shadowed, f"package names hiding a module of the same name: {shadowed}"


# Modules and functions allowed past the size limits, each with its reason in docs/design.md.
SIZE_EXCEPTIONS = {"hexjax/games/_renju.py", "hexjax/games/_renju.py:Forbidden.exact"}
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 400, 80


def test_modules_and_functions_stay_small():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(PACKAGE.parent))
        text = path.read_text()
        if len(text.splitlines()) > MAX_MODULE_LINES and name not in SIZE_EXCEPTIONS:
            too_long.append(f"{name}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                owner = f"{node.name}." if isinstance(node, ast.ClassDef) else ""
                label = f"{name}:{owner}{child.name}"
                lines = child.end_lineno - child.lineno + 1
                if lines > MAX_FUNCTION_LINES and label not in SIZE_EXCEPTIONS:
                    too_long.append(f"{label}: {lines} lines")
    assert not too_long, "over the size limits (docs/design.md):\n" + "\n".join(too_long)
