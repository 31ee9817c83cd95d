"""The set-up side of the engine, in plain Python: loading and validating an event
(:mod:`.event`, :mod:`.schema`; the defaults by vehicle class, :mod:`.vehicle_classes`),
reading its files (:mod:`.meshes`, :mod:`.terrain_crg`),
the quantities derived from it (:mod:`.derived`), static equilibrium (:mod:`.equilibrium`,
:mod:`.payload`), the checks made before a run (:mod:`.stability`, :mod:`.start_clear`,
:mod:`.footprint`), the packing of the parameters the kernels read (:mod:`.params` assembling
what each subsystem packs, :mod:`.pack`, :mod:`.collision`, :mod:`.wheel_meshes`) and the start
on a terrain (:mod:`.settle`).

No compiled kernel imports this package (``tests/test_architecture.py``), and the kernels'
compile cache is keyed on their own sources only (:mod:`engine.jit`), so an edit here never
recompiles the engine.
"""
