"""The SIMON engine as FMI 2.0 Co-Simulation FMUs, organised by concern:

* :mod:`simon_fmu.vehicle`: the vehicle FMU (slave, entry module, build);
* :mod:`simon_fmu.runtime`: the FMI runtime and packaging (bundle, FMI library, protocol);
* :mod:`simon_fmu.controllers`: the driver and ABS controllers, their courses and FMUs;
* :mod:`simon_fmu.cosim`: the co-simulation master and SSP systems;
* :mod:`simon_fmu.tools`: the importer scenario and the FMI cross-check folder.

``python -m simon_fmu build`` (:func:`simon_fmu.vehicle.build.build_fmu`) makes the vehicle FMU.
"""
