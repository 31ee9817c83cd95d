"""The packed parameters' layout: for every field of :class:`engine.layout.Model`, its dtype,
its axes and shape, what one row is, and the names of its columns, taken from the slot
constants of ``engine/layout.py`` (``U_*`` for ``P_UNIT``, ``W_*`` for ``P_WHEEL``, ...).

:data:`PREFIXES` says which prefix of slot constants names the columns of which array; a
constant belongs to the longest prefix it starts with (``T_HT_X`` to ``T_WHEEL``'s tables,
``T_KT`` to ``P_TIRE``). A slot that starts a run of unnamed columns (``CO_K0`` .. ``CO_K0 + 5``)
is listed in :data:`RUNS`. ``tools/parameter_layout.py`` writes docs/parameter-layout.md from
it; ``resources/native.bin`` serialises every array as ``P.<field>`` (docs/native.md).
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from .. import layout as L

#: which prefix of engine.layout's slot constants names the indices of which array's named axis
PREFIXES = {
    "U_": "P_UNIT", "EM_": "P_ENG", "W_": "P_WHEEL", "T_HT_": "T_WHEEL", "T_CAM_": "T_WHEEL",
    "T_": "P_TIRE", "TP_": "TT", "A_": "P_AERO", "E_": "P_ENV", "AX_": "P_AXLE", "C_": "P_CONN",
    "B_": "P_BRAKE", "TB_": "T_BRAKE", "CO_": "P_COLL", "FACE_": "CK", "BA_": "P_BAR",
    "PA_": "P_PAIR", "WC_": "P_WCOLL",
}

#: columns no slot names: P_WCOLL's last (N_WCOLL_P = 11 + 6 counts WC_K0 twice, so its rows
#: are one column wider than WC_V0 .. WC_K0 + 5; nothing writes or reads it: always 0)
UNUSED = {"P_WCOLL": (L.WC_K0 + L.N_FACES,)}

#: a slot that starts a run of columns without names of their own: how many
RUNS = {"CO_K0": L.N_FACES, "CO_R0": 6, "CO_D0": L.N_FACES, "CO_GRID": 3, "BA_T0": 9, "WC_K0": L.N_FACES}


class Spec(NamedTuple):
    field: str
    dtype: str
    axes: tuple             # each axis's item: the first is what one row is
    named_axis: Optional[int]   # the axis the column names index (None: no names)
    names: tuple            # explicit names of that axis (when no prefix names it)
    width: Optional[str]    # the engine.layout constant of that axis's length, if fixed
    packer: str             # the set-up module that packs it
    row: str                # what one row is


#: every field of engine.layout.Model, in its order
SPECS = (
    Spec("P_UNIT", "float64", ("unit", "column"), 1, (), "N_UNIT_P",
         "pack.unit, pack.steering, pack.brakes, pack.drivetrain", "a vehicle unit"),
    Spec("P_GEAR", "float64", ("unit", "gear"), 1, (), None, "pack.drivetrain",
         "a unit's gear ratios: reverse, then forward gear 1 .. the event's most gears (0: none)"),
    Spec("P_DIFF", "float64", ("unit", "differential gear"), 1, (), None, "pack.drivetrain",
         "a unit's differential gear table: differential gear 1 .. the event's most (0: none)"),
    Spec("P_ENG", "float64", ("unit", "table", "table row"), 1, (), None, "pack.drivetrain",
         "a unit's engine maps (x and y of each table), as many rows as the event's longest"),
    Spec("N_ENG", "int64", ("unit", "table"), 1, ("wot_rows", "closed_throttle_rows"), None,
         "pack.drivetrain", "a unit's engine maps' row counts"),
    Spec("P_WHEEL", "float64", ("wheel", "column"), 1, (), "N_WHEEL_P",
         "pack.axle, pack.steering, pack.drivetrain, pack.brakes, pack.tire",
         "a wheel (per unit, axle by axle, left first)"),
    Spec("T_WHEEL", "float64", ("wheel", "table", "table row"), 1, (), None, "pack.axle",
         "a wheel's half-track and camber change tables, as many rows as the event's longest"),
    Spec("P_TIRE", "float64", ("tire", "column"), 1, (), "N_TIRE_P", "pack.tire",
         "a tire (per wheel: single, or a dual's inner then outer)"),
    Spec("TT", "float64", ("tire", "property", "test load", "test speed"), 1, (), "N_TIRE_PROPS",
         "pack.tire", "a tire's property grids, test load by test speed (a tire by partial "
         "derivatives, T_PROPS: each property's value at [0, 0], its derivatives in load and speed "
         "at [1, 0] and [0, 1])"),
    Spec("P_AERO", "float64", ("aero surface", "column"), 1, (), "N_AERO_P", "pack.aero",
         "an aero surface or device (one zero row when there are none)"),
    Spec("P_ENV", "float64", ("column",), 0, (), "N_ENV_P", "pack.environment",
         "the environment (one vector)"),
    Spec("P_AXLE", "float64", ("solid axle", "column"), 1, (), "N_AXLE_P", "pack.axle",
         "a solid axle (where its first wheel is)"),
    Spec("P_CONN", "float64", ("connection", "column"), 1, (), "N_CONN_P", "pack.connection",
         "a connection, in towed-unit order"),
    Spec("P_BRAKE", "float64", ("brake design", "column"), 1, (), "N_BRAKE_P", "pack.brakes",
         "a brake design, in wheel order (one zero row when there are none)"),
    Spec("T_BRAKE", "float64", ("brake design", "table", "table row"), 1, (), None, "pack.brakes",
         "a brake design's tables, as many rows as the event's longest"),
    Spec("TR_TRI", "float64", ("road triangle", "column"), 1,
         ("X1", "Y1", "Z1", "X2", "Y2", "Z2", "X3", "Y3", "Z3"), None, "meshes (pack.environment)",
         "a road triangle of a mesh terrain (zero rows otherwise)"),
    Spec("TR_NRM", "float64", ("road triangle", "column"), 1, ("nx", "ny", "nz", "d"), None,
         "meshes (pack.environment)", "a road triangle's downward unit normal and d (n . P = d)"),
    Spec("TR_MAT", "float64", ("road triangle",), None, (), None, "meshes (pack.environment)",
         "a road triangle's material row in TR_MATP"),
    Spec("TR_MATP", "float64", ("material", "column"), 1,
         ("friction_multiplier", "water_depth", "texture_depth"), None, "meshes (pack.environment)",
         "a material (row 0: none)"),
    Spec("TR_GRID", "float64", ("column",), 0,
         ("x0", "y0", "cell_size_x", "nx", "ny", "cell_size_y"), None,
         "meshes (pack.environment)", "the lookup grid (one vector)"),
    Spec("TR_START", "int64", ("grid cell + 1",), None, (), None, "meshes (pack.environment)",
         "a grid cell's first entry in TR_CELL (CSR)"),
    Spec("TR_CELL", "int64", ("entry",), None, (), None, "meshes (pack.environment)",
         "a triangle index of a grid cell's list"),
    Spec("P_COLL", "float64", ("unit", "column"), 1, (), "N_COLL_P", "collision",
         "a unit's exterior mesh and contact data"),
    Spec("CV", "float64", ("mesh vertex", "column"), 1,
         ("x", "y", "z", "cell_lo_x", "cell_hi_x", "cell_lo_y", "cell_hi_y", "cell_lo_z", "cell_hi_z"),
         "N_CV", "collision, wheel_meshes",
         "a vertex: the units' exterior meshes, then the wheels' meshes; its tributary cell from it "
         "(CV_CELL)"),
    Spec("CK", "float64", ("mesh vertex", "face"), 1, (), "N_FACES", "collision, wheel_meshes",
         "a vertex's stiffness per face (N/m)"),
    Spec("P_BAR", "float64", ("barrier", "column"), 1, (), "N_BAR_P", "collision",
         "a barrier plane or a wall triangle of a mesh terrain"),
    Spec("P_PAIR", "float64", ("pair of units", "column"), 1, (), "N_PAIR_P", "collision",
         "a pair of units whose meshes can meet"),
    Spec("P_WCOLL", "float64", ("wheel", "column"), 1, (), "N_WCOLL_P", "wheel_meshes",
         "a wheel's mesh and damage thresholds"),
    Spec("XM", "float64", ("entry",), None, (), None, "collision",
         "the OBJ exteriors other units meet: per unit and axis the grid of its triangles (XG_*, "
         "zeros for a unit met as its box), then the triangles (XT_*), then the grids' cells "
         "(engine/layout.py)"),
)
assert tuple(s.field for s in SPECS) == L.Model._fields


def _owner(name: str) -> Optional[str]:
    best = max((p for p in PREFIXES if name.startswith(p)), key=len, default=None)
    return PREFIXES[best] if best else None


def slot_names(field: str) -> list:
    """The names of the slot constants of ``field``'s named axis, by index: one list per
    index (a correct layout has exactly one name at each); a run's unnamed columns are
    ``<slot>+k``."""
    slots = {}
    for name, value in vars(L).items():
        if name.isupper() and type(value) is int and _owner(name) == field:
            slots[name] = value
            for k in range(1, RUNS.get(name, 1)):
                slots[f"{name}+{k}"] = value + k
    for k in UNUSED.get(field, ()):
        slots[f"(unused {k})"] = k
    width = max(slots.values(), default=-1) + 1
    out = [[] for _ in range(width)]
    for name, value in sorted(slots.items(), key=lambda kv: (kv[1], kv[0])):
        out[value].append(name)
    return out


class ArrayLayout(NamedTuple):
    field: str
    dtype: str
    axes: tuple
    shape: tuple            # of the model given, else None
    columns: tuple          # the names of the named axis's indices (() when it has none)
    width: Optional[int]    # the fixed length of the named axis (engine.layout), else None
    width_name: Optional[str]
    packer: str
    row: str
    named_axis: Optional[int]   # the axis ``columns`` names


def columns(spec: Spec, model=None) -> tuple:
    """The names of ``spec``'s named axis (for ``P_GEAR`` and ``P_DIFF``, of ``model``'s gears)."""
    if spec.named_axis is None:
        return ()
    if spec.names:
        return spec.names
    if spec.field == "P_GEAR":
        n = getattr(model, "P_GEAR").shape[1] - 1 if model is not None else 0
        return ("reverse",) + tuple(f"gear{k}" for k in range(1, n + 1))
    if spec.field == "P_DIFF":
        n = getattr(model, "P_DIFF").shape[1] if model is not None else 0
        return tuple(f"differential{k}" for k in range(1, n + 1))
    return tuple(names[0] if len(names) == 1 else "|".join(names) or "?"
                 for names in slot_names(spec.field))


def parameter_layout(model=None) -> list:
    """Per field of :class:`engine.layout.Model` (in its order), its :class:`ArrayLayout`; with
    a packed ``model``, the shapes (and ``P_GEAR``'s and ``P_DIFF``'s gears) are that model's."""
    out = []
    for s in SPECS:
        shape = tuple(getattr(model, s.field).shape) if model is not None else None
        width = getattr(L, s.width) if s.width else None
        out.append(ArrayLayout(s.field, s.dtype, s.axes, shape, columns(s, model), width, s.width,
                               s.packer, s.row, s.named_axis))
    return out
