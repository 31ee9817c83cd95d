"""The SIMON engine as an FMI 2.0 Co-Simulation slave (pythonfmu), and its build command.

``simon_fmu.slave`` is the slave an FMU runs; ``simon_fmu.build.build_fmu`` (or
``python -m simon_fmu build``) makes the FMU.
"""
