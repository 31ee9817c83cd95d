"""Tools around the FMU: the importer scenario (:mod:`.scenario`: one FMU, one input table, one
fixed step), the FMI cross-check folder (:mod:`.crosscheck`) and ISO 8608 rough roads as
OpenCRG files (:mod:`.rough_road`).
"""
