"""Co-simulation: a fixed-step master on fmpy (:mod:`.master`) and the closed-loop systems as
SSP files (:mod:`.ssp`).
"""
