"""Run FMUs in importers that this project did not write.

* ``simon_fmu.tools.scenario`` (project code, also used by ``simon_fmu.tools.crosscheck``): one FMU,
  an input table, a fixed communication step; the timing convention all runners share.
* ``runners``: fmpy, libcosim (``libcosimpy``) and Vico's ecos (``ecospy``).
* ``compare``: same outputs in every importer, to a relative tolerance.
* ``c_host`` / ``c_env``: a C FMI 2.0 host compiled with gcc, and the environment
  a non-Python process needs to run a pythonfmu FMU.
* the FMI cross-check folder is written by ``simon_fmu.tools.crosscheck`` (project code) and
  checked with fmpy's ``validate_vendor_repo``.
* ``system``: Debian libraries installed on demand (oneTBB for ecospy).
* ``probe``: a small pythonfmu FMU to exercise all of the above.
"""

from simon_fmu.tools.scenario import InputTable, Result, Scenario

from .compare import Mismatch, compare_results, run_and_compare

__all__ = ["InputTable", "Mismatch", "Result", "Scenario", "compare_results", "run_and_compare"]
