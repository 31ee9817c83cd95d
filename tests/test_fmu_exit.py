"""A Python host that used the FMU exits normally.

The FMU's library is the project's own, which does nothing at exit. With pythonfmu 0.7.0's
library and without simon_fmu.runtime.exit_guard, about one such process in four aborted at exit
with "corrupted double-linked list" (measured on this project's machines).
"""
import subprocess
import sys

SCRIPT = """
import sys, fmpy, scipy.linalg, numpy
for i in range(3):
    r = fmpy.simulate_fmu(sys.argv[1], stop_time=0.3, start_values={"car.speed0": 20.0})
assert r["time"][-1] > 0.29
print("done")
"""


def test_python_host_exits_cleanly(car_fmu):
    codes = []
    for _ in range(8):
        p = subprocess.run([sys.executable, "-c", SCRIPT, str(car_fmu)], capture_output=True, text=True,
                           timeout=120)
        assert "done" in p.stdout, p.stderr[-2000:]
        codes.append(p.returncode)
    assert codes == [0] * 8, codes
