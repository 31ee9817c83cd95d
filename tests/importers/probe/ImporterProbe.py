"""A small co-simulation slave for exercising importers.

Two Real inputs, two Real outputs with state, NumPy in the step (as the vehicle
model has). When the environment variable IMPORTER_PROBE_REPORT names a file, the
first step writes there, as JSON, what the embedded interpreter looks like.
"""

import json
import os
import sys

import numpy as np
from pythonfmu import Fmi2Causality, Fmi2Slave, Real


class ImporterProbe(Fmi2Slave):
    author = "simon-fmu tests"
    description = "Importer probe: y1' = u1 - 0.5*y1, y2 = sin(u1)*u2 + t"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.u1 = 0.0
        self.u2 = 1.0
        self.y1 = 0.0
        self.y2 = 0.0
        self._reported = False
        self.register_variable(Real("u1", causality=Fmi2Causality.input))
        self.register_variable(Real("u2", causality=Fmi2Causality.input))
        self.register_variable(Real("y1", causality=Fmi2Causality.output))
        self.register_variable(Real("y2", causality=Fmi2Causality.output))

    def do_step(self, current_time, step_size):
        # y1: explicit Euler of a first-order lag, integrated in 10 sub-steps
        h = step_size / 10.0
        y1 = self.y1
        for _ in range(10):
            y1 = y1 + h * (self.u1 - 0.5 * y1)
        self.y1 = float(y1)
        self.y2 = float(np.sin(self.u1) * self.u2 + current_time)
        if not self._reported:
            self._reported = True
            target = os.environ.get("IMPORTER_PROBE_REPORT")
            if target:
                with open(target, "w") as report:
                    json.dump(
                        {
                            "version": sys.version,
                            "prefix": sys.prefix,
                            "base_prefix": sys.base_prefix,
                            "path": sys.path,
                            "numpy": np.__file__,
                        },
                        report,
                    )
        return True
