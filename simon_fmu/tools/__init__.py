"""Tools around the FMU: the importer scenario (:mod:`.scenario`: one FMU, one input table, one
fixed step) and the FMI cross-check folder (:mod:`.crosscheck`).
"""
