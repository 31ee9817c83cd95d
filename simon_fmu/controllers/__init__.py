"""The controllers the vehicle is coupled with: the closed-loop driver (:mod:`.driver`) on the
standard courses (:mod:`.courses`), the anti-lock braking controller (:mod:`.abs_controller`),
their FMI slaves (:mod:`.slave`, entered through :mod:`.entry`) and their FMU build
(:mod:`.build`, ``build-driver`` and ``build-abs``).
"""
