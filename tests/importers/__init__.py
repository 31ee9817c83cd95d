"""Run FMUs in importers that this project did not write.

* ``scenario``: one FMU, an input table, a fixed communication step; the timing
  convention all runners share.
* ``runners``: fmpy, libcosim (``libcosimpy``) and Vico's ecos (``ecospy``).
* ``compare``: same outputs in every importer, to a relative tolerance.
* ``c_host`` / ``c_env``: a C FMI 2.0 host compiled with gcc, and the environment
  a non-Python process needs to run a pythonfmu FMU.
* ``crosscheck``: a folder in the FMI cross-check layout, checked with fmpy's
  ``validate_vendor_repo``.
* ``system``: Debian libraries installed on demand (oneTBB for ecospy).
* ``probe``: a small pythonfmu FMU to exercise all of the above.
"""

from .compare import Mismatch, compare_results, run_and_compare
from .scenario import InputTable, Result, Scenario

__all__ = ["InputTable", "Mismatch", "Result", "Scenario", "compare_results", "run_and_compare"]
