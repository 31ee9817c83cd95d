"""Each subsystem packs its own rows of the packed arrays (``engine.layout.Model``).

:mod:`.rows` says what one row of each array is (a unit, a wheel, a tire, a solid axle, an aero
surface) and the order every packer follows; then one module per subsystem writes its arrays and
its columns of the shared ones:

- :mod:`.unit`: the sprung mass rows of ``P_UNIT`` (mass, inertia, CG height, lead unit) and
  where each unit's wheels, solid axles and aero surfaces lie in the other arrays;
- :mod:`.axle`: the suspension geometry of ``P_WHEEL`` (position, springs, stops, bump steer,
  ``T_WHEEL``'s tables) and the solid axles, ``P_AXLE`` (Eq. 19-26, 63-65);
- :mod:`.tire`: ``P_TIRE``, ``TT`` and a wheel's tires and spin inertia;
- :mod:`.brakes`: the brake system of ``P_UNIT`` and ``P_WHEEL``, ``P_BRAKE``, ``T_BRAKE``;
- :mod:`.drivetrain`: the powertrain of ``P_UNIT`` and ``P_WHEEL`` (Eq. 32), ``P_GEAR``,
  ``P_DIFF``, ``P_ENG``, ``N_ENG``, and the powertrain's start (idle, clutch);
- :mod:`.steering`: the steering system of ``P_UNIT`` (Eq. 33-39) and the steered wheels;
- :mod:`.aero`: ``P_AERO`` (Eq. 140);
- :mod:`.connection`: ``P_CONN`` (Eq. 117-135);
- :mod:`.environment`: ``P_ENV`` and the terrain arrays ``TR_*``.

Collisions are packed by :mod:`engine.setup.collision` (``P_COLL``, ``CV``, ``CK``, ``P_BAR``,
``P_PAIR``) and the wheels' meshes by :mod:`engine.setup.wheel_meshes` (``P_WCOLL``).
:func:`engine.setup.params.pack` assembles them in order; :mod:`engine.setup.parameter_layout`
describes every array's rows and columns (docs/parameter-layout.md).
"""
