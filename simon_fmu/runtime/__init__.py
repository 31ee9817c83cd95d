"""The FMI runtime and the packaging an FMU is made of: the code an FMU carries
(:mod:`.bundle`), the project's FMI 2.0 library in C (:mod:`.fmi2_library`, sources in
``native/``), how a slave answers that library (:mod:`.protocol`, :mod:`.exit_guard`), and the
steps every FMU build shares (:mod:`.packaging`).
"""
