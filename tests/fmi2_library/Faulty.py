"""A small slave that misbehaves on request, for the tests of simon-fmu's FMI library.

Parameter ``fault`` picks what goes wrong: 1 do_step raises, 2 get_real raises,
3 exit_initialization_mode raises, 4 do_step answers fmi2Error (3), 5 do_step answers
fmi2Discard (False). With $FAULTY_INIT_RAISES set, creating the slave raises. Otherwise ``y = 2 u`` after each step, with a warning (status 1) and a
log message with a percent sign for a negative ``u``.
"""
import os

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Integer, Real
from pythonfmu.enums import Fmi2Status


class Faulty(Fmi2Slave):
    author = "simon-fmu tests"
    description = "Misbehaves on request"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        if os.environ.get("FAULTY_INIT_RAISES"):
            raise ValueError("the slave cannot be created")
        self.library = kwargs.get("fmi2_library", "")
        self.fault = 0
        self.u = 0.0
        self.y = 0.0
        self.register_variable(Integer("fault", causality=Fmi2Causality.parameter,
                                       variability=Fmi2Variability.fixed))
        self.register_variable(Real("u", causality=Fmi2Causality.input))
        self.register_variable(Real("y", causality=Fmi2Causality.output,
                                    getter=self._get_y))

    def _get_y(self):
        if self.fault == 2:
            raise KeyError("fault 2: y cannot be read")
        return self.y

    def exit_initialization_mode(self):
        if self.fault == 3:
            raise RuntimeError("fault 3: exit_initialization_mode")
        self.log(f"initialised by {self.library or 'another library'}", Fmi2Status.ok, "logAll")

    def do_step(self, current_time, step_size):
        if self.fault == 1:
            raise ZeroDivisionError("fault 1: do_step")
        if self.fault == 4:
            self.log(f"fault 4: step from t={current_time} refused", Fmi2Status.error,
                     "logStatusError")
            return 3
        if self.fault == 5:
            return False
        self.y = 2.0 * self.u
        if self.u < 0:
            self.log(f"u = {self.u} is negative: 100% sure %s %d", Fmi2Status.warning,
                     "logStatusWarning")
            return 1
        return True
