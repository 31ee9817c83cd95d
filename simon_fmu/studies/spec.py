"""The sweep specification (JSON), checked field by field, and its cases.

```json
{"event": "engine/data/sedan.json",               // optional; default the default car
 "manoeuvre": {"name": "straight-brake", "settings": {"brakePedalForce": 3000}},
 "grid": {"frictionMultiplier": [0.3, 0.65, 1.0], "speed0": [15, 25]},
 "random": {"brakePedalForce": {"uniform": [1000, 4000]}, "samples": 8, "seed": 1}}
```

``grid`` sweeps every combination of its lists (in the order the parameters are given, the
last changing fastest); ``random`` draws ``samples`` values per parameter, ``uniform``
[low, high] or ``normal`` [mean, sd], from NumPy's ``default_rng(seed)`` on the client. With
both, every random sample meets every grid point. A parameter is a setting of the manoeuvre
or a parameter of the FMU (``python -m simon_fmu variables``). Case ids are the cases'
positions in that order, so they and the samples are the same on every run.
"""
from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import manoeuvres

_TOP = ("event", "manoeuvre", "grid", "random")
_DISTRIBUTIONS = {"uniform": "[low, high] with low <= high", "normal": "[mean, sd] with sd >= 0"}


class SpecError(ValueError):
    """A sweep specification is not acceptable; ``problems`` name the fields."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class Spec:
    event: str | None
    manoeuvre: manoeuvres.Manoeuvre
    settings: dict            # the spec's fixed settings (not yet over the defaults)
    grid: dict[str, list]
    random: dict[str, tuple[str, float, float]]
    samples: int
    seed: int
    base: Path                # the spec's folder: an event path is tried relative to it first

    @property
    def parameters(self) -> list[str]:
        return list(self.grid) + list(self.random)

    def cases(self) -> list[dict]:
        """Every case's parameters, in case-id order."""
        grid_points = [dict(zip(self.grid, values))
                       for values in itertools.product(*self.grid.values())]
        if not self.random:
            return grid_points
        rng = np.random.default_rng(self.seed)
        draws = {}
        for name, (kind, a, b) in self.random.items():
            values = rng.uniform(a, b, self.samples) if kind == "uniform" \
                else rng.normal(a, b, self.samples)
            draws[name] = [float(v) for v in values]
        samples = [{k: draws[k][i] for k in draws} for i in range(self.samples)]
        return [{**g, **r} for r in samples for g in grid_points]

    def event_path(self) -> Path | None:
        if self.event is None:
            return None
        path = Path(self.event)
        if path.is_absolute() or not (self.base / path).exists():
            return path                 # absolute, or relative to the working folder
        return self.base / path         # relative to the spec's folder

    def check_parameters(self, fmu_parameters: set[str]) -> None:
        """Each swept name must be a manoeuvre setting or an FMU parameter."""
        problems = []
        for field, names in (("grid", self.grid), ("random", self.random)):
            for name in names:
                if name not in self.manoeuvre.settings and name not in fmu_parameters:
                    problems.append(
                        f"{field}.{name}: neither a setting of {self.manoeuvre.name} "
                        f"({', '.join(self.manoeuvre.settings)}) nor a parameter of the FMU")
        if problems:
            raise SpecError(problems)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def parse(data, base: Path = Path(".")) -> Spec:
    """Check a spec (parsed JSON); SpecError listing every problem by field."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise SpecError(["(top level): expected a JSON object"])
    for key in data:
        if key not in _TOP:
            problems.append(f"{key}: unknown field; a spec has {', '.join(_TOP)}")
    event = data.get("event")
    if event is not None and not isinstance(event, str):
        problems.append("event: expected the path of an event JSON file (a string)")
    man, settings = None, {}
    entry = data.get("manoeuvre")
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        problems.append("manoeuvre: expected {\"name\": one of "
                        f"{', '.join(manoeuvres.MANOEUVRES)}, \"settings\": {{...}}}}")
    else:
        for key in entry:
            if key not in ("name", "settings"):
                problems.append(f"manoeuvre.{key}: unknown field; it has name and settings")
        try:
            man = manoeuvres.get(entry["name"])
        except ValueError as exc:
            problems.append(f"manoeuvre.name: {exc}")
        settings = entry.get("settings", {})
        if not isinstance(settings, dict):
            problems.append("manoeuvre.settings: expected an object of setting: number")
            settings = {}
        elif man is not None:
            try:
                man.resolve(settings)
            except ValueError as exc:
                problems.append(f"manoeuvre.settings.{exc}")
    grid = data.get("grid", {})
    if not isinstance(grid, dict):
        problems.append("grid: expected an object of parameter: list of numbers")
        grid = {}
    for name, values in grid.items():
        if not isinstance(values, list) or not values or not all(_number(v) for v in values):
            problems.append(f"grid.{name}: expected a non-empty list of finite numbers")
    random_, samples, seed = {}, 0, 0
    rnd = data.get("random")
    if rnd is not None:
        if not isinstance(rnd, dict):
            problems.append("random: expected an object of parameter: {\"uniform\": [low, high]} "
                            "or {\"normal\": [mean, sd]}, with samples and seed")
            rnd = {}
        samples, seed = rnd.get("samples"), rnd.get("seed", 0)
        if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
            problems.append("random.samples: expected a whole number >= 1")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            problems.append("random.seed: expected a whole number >= 0")
        for name, dist in rnd.items():
            if name in ("samples", "seed"):
                continue
            ok = isinstance(dist, dict) and len(dist) == 1 and next(iter(dist)) in _DISTRIBUTIONS
            kind = next(iter(dist)) if ok else None
            pair = dist[kind] if ok else None
            ok = ok and isinstance(pair, list) and len(pair) == 2 and all(_number(v) for v in pair)
            ok = ok and (pair[0] <= pair[1] if kind == "uniform" else pair[1] >= 0)
            if not ok:
                problems.append(f"random.{name}: expected {{\"uniform\": {_DISTRIBUTIONS['uniform']}}}"
                                f" or {{\"normal\": {_DISTRIBUTIONS['normal']}}}")
            elif name in grid:
                problems.append(f"random.{name}: also in grid; sweep a parameter one way")
            else:
                random_[name] = (kind, float(pair[0]), float(pair[1]))
    if not grid and not random_ and not problems:
        problems.append("grid, random: a spec sweeps at least one parameter")
    if man is not None:
        for name in list(grid) + list(random_):
            if name in settings:
                problems.append(f"{name}: both a fixed manoeuvre setting and swept")
            if name == "duration":
                problems.append(f"{name}: the run's length is not swept")
    if problems:
        raise SpecError(problems)
    return Spec(event, man, settings, grid, random_, samples, seed, base)


def load(path: str | Path) -> Spec:
    """Read and check a spec file; SpecError naming the file's problems."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise SpecError([f"{path}: {exc}"]) from None
    return parse(data, path.parent)
