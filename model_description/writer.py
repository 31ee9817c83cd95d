"""modelDescription.xml (FMI 2.0, Co-Simulation) generated from a :class:`Catalogue` with lxml."""
from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import NamedTuple, Optional

from lxml import etree

from .catalogue import ENUMERATIONS, Catalogue, Variable

GENERATION_TOOL = "simon-fmu"

#: Log categories the slave really uses (see simon_fmu.vehicle.slave).
LOG_CATEGORIES = {
    "logStatusError": "Rejected inputs and parameters, engine failures, refused steps",
    "logStatusWarning": "Requests the slave ignores, such as a fixed parameter set too late",
    "logAll": "Everything, including the summary of the built simulation",
}

#: DefaultExperiment: startTime, stopTime, stepSize (the communication step, s).
DEFAULT_EXPERIMENT = {"startTime": 0.0, "stopTime": 10.0, "stepSize": 0.01}


class Unit(NamedTuple):
    """An SI unit: its base-unit exponents and its display units (name -> factor)."""

    exponents: dict[str, int]
    display: dict[str, float]


_DEG = 180.0 / math.pi
_G = 9.80665

#: Every unit the catalogue uses. DisplayUnit_value = factor * Unit_value.
UNITS: dict[str, Unit] = {
    "m": Unit({"m": 1}, {}),
    "s": Unit({"s": 1}, {}),
    "kg": Unit({"kg": 1}, {}),
    "rad": Unit({"rad": 1}, {"deg": _DEG}),
    "m/s": Unit({"m": 1, "s": -1}, {"km/h": 3.6}),
    "rad/s": Unit({"rad": 1, "s": -1}, {"deg/s": _DEG, "rpm": 60.0 / (2.0 * math.pi)}),
    "m/s2": Unit({"m": 1, "s": -2}, {"g": 1.0 / _G}),
    "N": Unit({"kg": 1, "m": 1, "s": -2}, {"kN": 1e-3}),
    "N.m": Unit({"kg": 1, "m": 2, "s": -2}, {}),
    "Pa": Unit({"kg": 1, "m": -1, "s": -2}, {"bar": 1e-5}),
    "K": Unit({"K": 1}, {}),
    "N.m/Pa": Unit({"m": 3}, {}),
}

#: SimpleTypes: the quantity of every Real with a unit, with its usual display unit.
#: unit -> (type name, quantity, display unit)
TYPES: dict[str, tuple[str, str, Optional[str]]] = {
    "m": ("Length", "Length", None),
    "s": ("Time", "Time", None),
    "kg": ("Mass", "Mass", None),
    "rad": ("Angle", "Angle", "deg"),
    "m/s": ("Velocity", "Velocity", "km/h"),
    "rad/s": ("AngularVelocity", "AngularVelocity", "deg/s"),
    "m/s2": ("Acceleration", "Acceleration", "g"),
    "N": ("Force", "Force", None),
    "N.m": ("Torque", "Torque", None),
    "K": ("Temperature", "ThermodynamicTemperature", None),
    "N.m/Pa": ("BrakeTorqueRatio", "TorquePerPressure", None),
    "Pa": ("Pressure", "Pressure", "bar"),
}


def format_value(x) -> str:
    """A number as modelDescription.xml writes it (shortest round-trip form)."""
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    return repr(float(x))


def generation_time(epoch: Optional[float] = None) -> str:
    """ISO 8601 UTC time for generationDateAndTime (now, or ``epoch`` seconds)."""
    t = datetime.now(timezone.utc) if epoch is None else datetime.fromtimestamp(epoch, timezone.utc)
    return t.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def model_description(catalogue: Catalogue, *, model_identifier: str, guid: str,
                      generated_at: str, model_name: Optional[str] = None,
                      description: str = "", version: str = "") -> etree._Element:
    """Build the fmiModelDescription element.

    Parameters:
        catalogue: the variables (from :func:`model_description.build_catalogue`).
        model_identifier: name of the shared library and of the CoSimulation element.
        guid: the FMU's GUID; it must change whenever the description changes.
        generated_at: generationDateAndTime, e.g. from :func:`generation_time`.
        model_name: defaults to ``model_identifier``.
        description, version: optional attributes of the root element.
    """
    attrib = {"fmiVersion": "2.0", "modelName": model_name or model_identifier, "guid": guid}
    if description:
        attrib["description"] = description
    if version:
        attrib["version"] = version
    attrib.update(generationTool=GENERATION_TOOL, generationDateAndTime=generated_at,
                  variableNamingConvention="structured",
                  numberOfEventIndicators="0")
    root = etree.Element("fmiModelDescription", attrib)

    etree.SubElement(root, "CoSimulation", {
        "modelIdentifier": model_identifier,
        "needsExecutionTool": "false",
        "canHandleVariableCommunicationStepSize": "true",
        "canInterpolateInputs": "false",
        "maxOutputDerivativeOrder": "0",
        "canRunAsynchronuously": "false",
        "canBeInstantiatedOnlyOncePerProcess": "false",
        "canNotUseMemoryManagementFunctions": "true",
        "canGetAndSetFMUstate": "true",
        "canSerializeFMUstate": "true",
        "providesDirectionalDerivative": "false",
    })

    used_units = sorted({v.unit for v in catalogue if v.unit}, key=list(UNITS).index)
    units = etree.SubElement(root, "UnitDefinitions")
    for name in used_units:
        unit = UNITS[name]
        el = etree.SubElement(units, "Unit", name=name)
        etree.SubElement(el, "BaseUnit", {k: str(e) for k, e in unit.exponents.items()})
        for display, factor in unit.display.items():
            etree.SubElement(el, "DisplayUnit", name=display, factor=format_value(factor))

    types = etree.SubElement(root, "TypeDefinitions")
    for name in used_units:
        type_name, quantity, display = TYPES[name]
        el = etree.SubElement(types, "SimpleType", name=type_name)
        real = {"quantity": quantity, "unit": name}
        if display:
            real["displayUnit"] = display
        etree.SubElement(el, "Real", real)
    for name in sorted({v.declared_type for v in catalogue if v.type == "Enumeration"},
                       key=list(ENUMERATIONS).index):
        enumeration = ENUMERATIONS[name]
        el = etree.SubElement(types, "SimpleType", name=name, description=enumeration.description)
        items = etree.SubElement(el, "Enumeration")
        for value, (item, text) in enumerate(enumeration.items, start=1):
            etree.SubElement(items, "Item", name=item, value=str(value), description=text)

    categories = etree.SubElement(root, "LogCategories")
    for name, text in LOG_CATEGORIES.items():
        etree.SubElement(categories, "Category", name=name, description=text)

    etree.SubElement(root, "DefaultExperiment",
                     {k: format_value(x) for k, x in DEFAULT_EXPERIMENT.items()})

    variables = etree.SubElement(root, "ModelVariables")
    for v in catalogue:
        variables.append(_scalar_variable(v))

    _model_structure(etree.SubElement(root, "ModelStructure"), catalogue)
    return root


def _scalar_variable(v: Variable) -> etree._Element:
    attrib = {"name": v.name, "valueReference": str(v.value_reference),
              "description": v.description, "causality": v.causality,
              "variability": v.variability}
    if v.initial:
        attrib["initial"] = v.initial
    el = etree.Element("ScalarVariable", attrib)
    typed = {}
    if v.type == "Real" and v.unit:
        type_name, _, display = TYPES[v.unit]
        typed["declaredType"] = type_name
        if v.display_unit != display:
            typed["displayUnit"] = v.display_unit
    elif v.type == "Enumeration":
        typed["declaredType"] = v.declared_type
    for key, value in (("start", v.start), ("min", v.min), ("max", v.max)):
        if value is not None:
            typed[key] = format_value(value)
    etree.SubElement(el, v.type, typed)
    return el


def _model_structure(structure: etree._Element, catalogue: Catalogue) -> None:
    """Outputs and InitialUnknowns with their dependencies.

    Outputs change only in doStep, so at a communication point they depend on no input
    directly (dependencies=""). Their initial values come from the static equilibrium the
    engine computes from the parameters, so as initial unknowns they depend on every
    parameter. The calculated parameters (mass, wheelbase) come from the event data alone.
    """
    outputs = catalogue.with_causality("output")
    parameters = " ".join(str(catalogue.index_of(v)) for v in catalogue.with_causality("parameter"))
    el = etree.SubElement(structure, "Outputs")
    for v in outputs:
        etree.SubElement(el, "Unknown", index=str(catalogue.index_of(v)), dependencies="")
    el = etree.SubElement(structure, "InitialUnknowns")
    for v in catalogue:
        if v.causality == "output":
            etree.SubElement(el, "Unknown", index=str(catalogue.index_of(v)),
                             dependencies=parameters)
        elif v.causality == "calculatedParameter":
            etree.SubElement(el, "Unknown", index=str(catalogue.index_of(v)), dependencies="")


def model_description_xml(catalogue: Catalogue, **kwargs) -> bytes:
    """modelDescription.xml as UTF-8 bytes; keyword arguments as :func:`model_description`."""
    return etree.tostring(model_description(catalogue, **kwargs), xml_declaration=True,
                          encoding="UTF-8", pretty_print=True)
