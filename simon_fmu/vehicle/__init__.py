"""The vehicle FMU: the slave that runs the engine (:mod:`.slave`), the entry module a built FMU
imports (:mod:`.entry`) and the build (:mod:`.build`, ``python -m simon_fmu build``).
"""
