"""The closed-loop systems as SSP files: SystemStructure.ssd and the FMUs in one zip.

    python -m simon_fmu ssp split-mu -o out/split-mu.ssp

writes the system ``split-mu`` (vehicle, driver and ABS) with the FMUs it needs, building
those not given (``--vehicle``, ``--driver``, ``--abs``). The systems (:data:`SYSTEMS`):

- ``lane-change``: vehicle and driver, ISO 3888-2 at 60 km/h from 30 m before the course;
- ``abs-braking``: vehicle and ABS, full pedal (1000 N, an unconnected vehicle input) from
  100 km/h on a straight road;
- ``split-mu``: vehicle, driver and ABS, the driver's emergency stop from 100 km/h with
  friction multiplier 1 on the left wheels and 0.25 on the right.

The SSD (SSP 1.0) has one component per FMU (``resources/<instance>.fmu``), the connections
that :meth:`simon_fmu.cosim.master.Master.connect_by_name` makes, and as connectors the connected
variables and the variables a system records. The start values are inline parameter
bindings of each component (``ssv:ParameterSet`` named ``start``), the step size and stop
time the DefaultExperiment (with libcosim's ``osp:FixedStepAlgorithm`` annotation).

The importers and what they need:

- fmpy (0.3.32, ``fmpy.ssp.simulation.simulate_ssp``) applies no parameter binding by
  itself: pass it :func:`fmpy_parameter_set` of the file. It cannot set a String, so the
  systems choose the driver's course with its Integer ``course`` (never ``path``). Its
  connectors start at 0.0 for the first step and it steps Jacobi, so
  ``Master.run(..., initial_exchange=False)`` in ``order="jacobi"`` is the run it matches;
  its result row ``k`` holds the values at ``t_k + h``.
- libcosim (libcosimpy, ``CosimExecution.from_ssp_file(path, step_ns)``) applies the
  bindings, exchanges values during initialisation and steps Jacobi: it matches the
  master in ``order="jacobi"``.
"""
from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union
from xml.sax.saxutils import quoteattr

import numpy as np

from ..runtime.packaging import partial_path

PathLike = Union[str, Path]

#: The FMU file each instance is built as.
FMU_KINDS = {"vehicle": "SimonCar.fmu", "driver": "Driver.fmu", "abs": "ABS.fmu"}
PREFIXES = {"vehicle": "car."}
_WHEELS = [f"axle{k}.{side}" for k in (1, 2) for side in ("left", "right")]


@dataclass(frozen=True)
class System:
    """A closed-loop system: its instances, start values, records and experiment.

    ``instances`` are in the master's stepping order (controllers before the vehicle);
    ``start_values`` are ``"instance.variable"`` -> value, ``record`` the variables a run
    records, ``step_size`` and ``stop_time`` in s.
    """

    name: str
    description: str
    instances: tuple[str, ...]
    start_values: dict = field(default_factory=dict)
    record: tuple[str, ...] = ()
    step_size: float = 0.01
    stop_time: float = 1.0


_CAR = ("vehicle.car.X", "vehicle.car.Y", "vehicle.car.yaw", "vehicle.car.speed")
_BRAKE = {"vehicle.car.speed0": 100 / 3.6}
SYSTEMS = {s.name: s for s in (
    System("lane-change", "ISO 3888-2 obstacle avoidance at 60 km/h: vehicle and driver",
           ("driver", "vehicle"),
           {"vehicle.car.speed0": 60 / 3.6, "vehicle.car.X0": -30.0,
            "driver.targetSpeed": 60 / 3.6, "driver.course": 2},
           _CAR + ("driver.steeringWheelAngle", "driver.lateralError"),
           step_size=0.01, stop_time=6.0),
    System("abs-braking", "Full-pedal braking from 100 km/h with ABS: vehicle and ABS",
           ("abs", "vehicle"),
           {**_BRAKE, "vehicle.car.brakePedalForce": 1000.0, "vehicle.car.gear": 0},
           _CAR + tuple(f"vehicle.car.{w}.spin" for w in _WHEELS)
           + tuple(f"abs.{w}.brakePressureFactor" for w in _WHEELS),
           step_size=0.002, stop_time=3.5),
    System("split-mu", "Split-mu braking from 100 km/h (friction 1 left, 0.25 right): "
           "vehicle, driver and ABS", ("driver", "abs", "vehicle"),
           {**_BRAKE, "driver.course": 4, "driver.targetSpeed": 100 / 3.6,
            "driver.brakeTime": 0.0,
            **{f"vehicle.car.axle{k}.right.frictionMultiplier": 0.25 for k in (1, 2)}},
           _CAR + ("driver.steeringWheelAngle",)
           + tuple(f"abs.{w}.brakePressureFactor" for w in _WHEELS),
           step_size=0.002, stop_time=6.5),
)}


def master(system: System, fmus: dict[str, PathLike], order: str = "gauss-seidel"):
    """A :class:`simon_fmu.cosim.master.Master` of ``system`` with ``fmus`` (instance -> file),
    connected by name."""
    from .master import Master
    m = Master({name: fmus[name] for name in system.instances}, system.step_size,
               prefixes={k: v for k, v in PREFIXES.items() if k in system.instances},
               order=order)
    m.connect_by_name()
    return m


def build_fmus(folder: PathLike, instances=tuple(FMU_KINDS),
               given: Optional[dict[str, PathLike]] = None) -> dict[str, Path]:
    """The FMU of every instance: ``given`` ones as they are, the others built in ``folder``."""
    from ..controllers.build import build_abs, build_driver
    from ..vehicle.build import build_fmu
    builders = {"vehicle": build_fmu, "driver": build_driver, "abs": build_abs}
    out = {}
    for name in instances:
        if given and given.get(name):
            out[name] = Path(given[name])
        else:
            out[name] = builders[name](output=Path(folder) / FMU_KINDS[name])
    return out


def write_ssp(system: System, fmus: dict[str, PathLike], output: PathLike) -> Path:
    """Write ``system`` with its FMUs (instance -> file) as an SSP file; returns its path."""
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    ssd = system_structure(system, fmus)
    partial = partial_path(output)
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("SystemStructure.ssd", ssd)
        for name in system.instances:
            z.write(fmus[name], f"resources/{name}.fmu", zipfile.ZIP_STORED)
    partial.replace(output)
    return output


def system_structure(system: System, fmus: dict[str, PathLike]) -> str:
    """The SystemStructure.ssd text of ``system`` (see the module docstring)."""
    m = master(system, fmus)
    variables = {(inst, v.name): v for inst, md in m._md.items() for v in md.modelVariables}
    connectors: dict[str, list[str]] = {name: [] for name in system.instances}
    for ref in [r for pair in m.connections for r in pair] + list(system.record):
        inst, _, var = ref.partition(".")
        if var not in connectors[inst]:
            connectors[inst].append(var)
    starts: dict[str, dict] = {name: {} for name in system.instances}
    for ref, value in system.start_values.items():
        inst, _, var = ref.partition(".")
        starts[inst][var] = value

    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<ssd:SystemStructureDescription '
             'xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" '
             'xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon" '
             'xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues" '
             'xmlns:osp="http://opensimulationplatform.com/SSP/OSPAnnotations" '
             f'version="1.0" name={quoteattr(system.name)} '
             f'description={quoteattr(system.description)} generationTool="simon-fmu">',
             f'  <ssd:System name={quoteattr(system.name)}>',
             '    <ssd:Elements>']
    for inst in system.instances:
        lines.append(f'      <ssd:Component name={quoteattr(inst)} '
                     f'source="resources/{inst}.fmu" type="application/x-fmu-sharedlibrary">')
        lines.append('        <ssd:Connectors>')
        for var in connectors[inst]:
            v = variables[inst, var]
            lines.append(f'          <ssd:Connector name={quoteattr(var)} '
                         f'kind="{v.causality}"><ssc:{v.type}/></ssd:Connector>')
        lines.append('        </ssd:Connectors>')
        if starts[inst]:
            lines += ['        <ssd:ParameterBindings>', '          <ssd:ParameterBinding>',
                      '            <ssd:ParameterValues>',
                      '              <ssv:ParameterSet version="1.0" name="start">',
                      '                <ssv:Parameters>']
            for var, value in starts[inst].items():
                type_ = variables[inst, var].type
                text = repr(float(value)) if type_ == "Real" else str(int(value))
                lines.append(f'                  <ssv:Parameter name={quoteattr(var)}>'
                             f'<ssv:{type_} value="{text}"/></ssv:Parameter>')
            lines += ['                </ssv:Parameters>', '              </ssv:ParameterSet>',
                      '            </ssd:ParameterValues>', '          </ssd:ParameterBinding>',
                      '        </ssd:ParameterBindings>']
        lines.append('      </ssd:Component>')
    lines += ['    </ssd:Elements>', '    <ssd:Connections>']
    for s, t in m.connections:
        (si, _, sv), (ti, _, tv) = s.partition("."), t.partition(".")
        lines.append(f'      <ssd:Connection startElement={quoteattr(si)} '
                     f'startConnector={quoteattr(sv)} endElement={quoteattr(ti)} '
                     f'endConnector={quoteattr(tv)}/>')
    lines += ['    </ssd:Connections>', '  </ssd:System>',
              f'  <ssd:DefaultExperiment startTime="0.0" stopTime="{system.stop_time!r}">',
              '    <ssd:Annotations>',
              '      <ssc:Annotation type="com.opensimulationplatform">',
              f'        <osp:Algorithm><osp:FixedStepAlgorithm '
              f'baseStepSize="{system.step_size!r}"/></osp:Algorithm>',
              '      </ssc:Annotation>', '    </ssd:Annotations>',
              '  </ssd:DefaultExperiment>', '</ssd:SystemStructureDescription>', '']
    return "\n".join(lines)


def fmpy_parameter_set(ssp: PathLike):
    """The start values of an SSP file as the ``parameter_set`` fmpy's ``simulate_ssp`` takes.

    fmpy reads the components' inline parameter bindings but applies only a parameter set
    it is given, whose names carry the component's name (``vehicle.car.speed0``).
    """
    from fmpy.ssp.ssd import ParameterSet, find_components, read_ssd
    out = ParameterSet(name="start", parameters=[])
    for component in find_components(read_ssd(str(ssp)).system):
        for binding in component.parameterBindings:
            for pset in binding.parameterValues:
                for p in pset.parameters:
                    p.name = f"{component.name}.{p.name}"
                    out.parameters.append(p)
    return out


def make_ssp(name: str, output: PathLike, fmus: Optional[dict[str, PathLike]] = None) -> Path:
    """Write the system ``name`` of :data:`SYSTEMS` to ``output``, building missing FMUs.

    Parameters:
        name: a key of :data:`SYSTEMS`.
        output: the .ssp file to write.
        fmus: instance -> FMU file for those already built (default: build them all).
    """
    system = SYSTEMS[name]
    with tempfile.TemporaryDirectory(prefix="simon_ssp_") as tmp:
        return write_ssp(system, build_fmus(tmp, system.instances, fmus), output)


def system_of(ssp: PathLike) -> System:
    """The :data:`SYSTEMS` entry an SSP file was written from (by its system name)."""
    import xml.etree.ElementTree as ET
    with zipfile.ZipFile(ssp) as z:
        name = ET.fromstring(z.read("SystemStructure.ssd")).get("name")
    if name not in SYSTEMS:
        raise ValueError(f"{ssp}: system {name!r} is none of {', '.join(SYSTEMS)}")
    return SYSTEMS[name]


def run_fmpy(ssp: PathLike, system: Optional[System] = None) -> dict:
    """Simulate an SSP file with fmpy's ``simulate_ssp``; returns ``{"time": ..., ref: ...}``.

    The values are those at the end of each step, at ``t_k + h`` (fmpy labels them with
    ``t_k``), so the arrays start one step after the start, for ``round(stop / h)`` steps
    (fmpy's own loop adds time in floating point and may run one step more).
    """
    from fmpy.ssp.simulation import simulate_ssp
    system = system or system_of(ssp)
    rows = simulate_ssp(str(ssp), stop_time=system.stop_time, step_size=system.step_size,
                        parameter_set=fmpy_parameter_set(ssp))
    n = round(system.stop_time / system.step_size)
    out = {"time": system.step_size * np.arange(1, n + 1)}
    out.update({ref: np.asarray(rows[ref][:n], float) for ref in system.record})
    return out


def run_libcosim(ssp: PathLike, system: Optional[System] = None) -> dict:
    """Simulate an SSP file in libcosim (libcosimpy's ``from_ssp_file``, fixed step).

    Returns ``{"time": ..., ref: ...}`` at the end of each step, as :func:`run_fmpy`.
    """
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    system = system or system_of(ssp)
    log_output_level(CosimLogLevel.WARNING)
    execution = CosimExecution.from_ssp_file(str(ssp), step_size=round(system.step_size * 1e9))
    observer = CosimObserver.create_last_value()
    execution.add_observer(observer=observer)
    reads = []   # (slave index, value references, refs) per instance
    for inst in system.instances:
        index = execution.slave_index_from_instance_name(inst)
        by_name = {v.name.decode(): v.reference for v in execution.slave_variables(index)}
        refs = [r for r in system.record if r.partition(".")[0] == inst]
        reads.append((index, [by_name[r.partition(".")[2]] for r in refs], refs))
    n = round(system.stop_time / system.step_size)
    out = {"time": np.empty(n), **{ref: np.empty(n) for ref in system.record}}
    for k in range(n):
        if not execution.step():
            raise RuntimeError(f"libcosim failed the step from t={k * system.step_size:g} s")
        out["time"][k] = execution.status().current_time * 1e-9
        for index, vrs, refs in reads:
            for ref, value in zip(refs, observer.last_real_values(index, vrs)):
                out[ref][k] = value
    execution.stop()
    return out


def _main(argv=None) -> int:
    """``python -m simon_fmu.cosim.ssp run fmpy|libcosim FILE.ssp OUT.npz``: simulate an SSP file
    written here in fmpy or libcosim and save the recorded values (in a process of its own:
    it leaves with os._exit, past the FMU libraries' exit handlers)."""
    import argparse
    import os
    import sys
    parser = argparse.ArgumentParser(prog="python -m simon_fmu.cosim.ssp")
    parser.add_argument("action", choices=["run"])
    parser.add_argument("importer", choices=["fmpy", "libcosim"])
    parser.add_argument("ssp")
    parser.add_argument("output")
    args = parser.parse_args(argv)
    result = (run_fmpy if args.importer == "fmpy" else run_libcosim)(args.ssp)
    np.savez(args.output, **result)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    _main()
