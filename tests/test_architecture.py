"""The engine's seams: the compiled kernels import nothing from the set-up side, no module of the
engine imports itself back through others, and the kernels' compile cache is keyed on the
kernels' sources alone (docs/engine-api.md, "Set-up and kernels")."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from engine import jit

ENGINE = Path(jit.__file__).resolve().parent


def _module(path: Path) -> str:
    rel = path.relative_to(ENGINE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """The engine modules ``path`` imports, at any depth of its code (function-level too)."""
    here = _module(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            if not target.startswith("engine"):
                continue
            if _is_package(target):    # ``from . import layout``: the modules named
                found.update(f"{target}.{a.name}" for a in node.names)
            else:
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("engine"))
    return {m for m in found if m != _module(path) and _exists(m) and not _is_package(m)}


def _path(module: str) -> Path:
    return ENGINE.parent.joinpath(*module.split("."))


def _exists(module: str) -> bool:
    p = _path(module)
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def _is_package(module: str) -> bool:
    return (_path(module) / "__init__.py").is_file()


def engine_modules() -> dict[str, set[str]]:
    return {_module(p): imports(p) for p in sorted(ENGINE.rglob("*.py"))
            if "__pycache__" not in p.parts and p.name != "__init__.py"}


def test_kernels_import_nothing_from_the_set_up_side():
    graph = engine_modules()
    kernels = {_module(p) for p in jit.kernel_sources()}
    assert "engine.integrator" in kernels and "engine.tire" in kernels
    assert not any(m.startswith("engine.setup") for m in kernels)
    for module in sorted(kernels):
        wrong = sorted(m for m in graph[module] if m not in kernels)
        assert not wrong, f"{module} (compiled) imports {wrong}, which are not compiled"


def test_no_import_circles():
    graph = engine_modules()
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                raise AssertionError("import circle: " + " -> ".join(stack[stack.index(n):] + [n]))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_the_compile_cache_follows_the_kernels_only(tmp_path):
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))
    before = jit.source_digest(copy)
    assert before == jit.SOURCE_DIGEST
    setup = copy / "setup" / "params.py"
    setup.write_text(setup.read_text() + "\n# a set-up edit\n")
    (copy / "simulation.py").write_text((copy / "simulation.py").read_text() + "\n# an edit\n")
    assert jit.source_digest(copy) == before
    tire = copy / "tire.py"
    tire.write_text(tire.read_text() + "\n# a kernel edit\n")
    assert jit.source_digest(copy) != before


def test_the_derivative_leaves_its_state_alone():
    """``vehicle.derivatives`` is a function of (t, y, inputs, parameters): the states it latches
    at a step boundary (a rigid steering's angle, a tire's turning point) go to
    ``Work.latched``, which the integrator takes into the state (engine.integrator.advance)."""
    import numpy as np

    import engine
    from engine.layout import SSA, TTURN
    from engine.signals import UNIT_INPUTS
    from engine.vehicle import derivatives

    sim = engine.Simulation(engine.load_event())
    sim.u_unit[0, UNIT_INPUTS.index("steeringWheelAngle")] = 0.3         # rad at the steering wheel (rigid)
    y = sim.y.copy()
    lay = sim.layout
    tire = lay.at("tire", 0) + TTURN
    steer = lay.at("steering", 0) + SSA
    y[tire] = 0.0                                             # a loaded tire's turning point behind
    before = y.copy()
    W = sim._scratch
    W.latched[:] = y
    derivatives(y, np.zeros_like(y), sim._inputs, sim.model, False, sim._outputs, sim._err, W)
    assert np.array_equal(y, before)
    assert W.latched[steer] == 0.3
    assert W.latched[tire] > 0.0                              # raised to the deflection
    changed = np.flatnonzero(W.latched != before)
    assert set(changed) <= {steer, tire} | {lay.at("tire", k) + TTURN for k in range(4)}
    # the integrator takes them at the step's boundary
    sim.advance(sim.step_size)
    assert sim.y[steer] == 0.3
