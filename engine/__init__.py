"""SIMON vehicle dynamics engine (HVE calculation method), in Python.

Public API: :func:`load_event`, :class:`Event`, :class:`Simulation`, the field-name tuples of
:mod:`engine.signals`, and the exceptions :class:`EventError`, :class:`InputError`,
:class:`SimulationError`. See ``docs/engine-api.md``.
"""
from .setup.event import Event, EventError, load_event  # noqa: F401
from .signals import (ENV_INPUTS, INPUT_LIMITS, TIRE_OUTPUTS, UNIT_INPUTS, UNIT_OUTPUTS,  # noqa: F401
                      WHEEL_INPUTS, WHEEL_OUTPUTS)

from .simulation import InputError, SimState, Simulation, SimulationError  # noqa: F401,E402
