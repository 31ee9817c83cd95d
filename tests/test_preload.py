"""The start in equilibrium across a crossfall (engine/preload.py): its sums over a vehicle's
tires are numpy's (``numpy.sum``'s pairwise summation, which the set-up used before the kernel),
bit for bit, so that the kernel's start is the one the set-up had. The equilibrium itself is
tested through the FMUs (tests/test_terrain_start_fmu.py, tests/test_wheel_displacement_fmu.py)
and against the native FMU's (tests/test_native_events.py)."""
import numpy as np
import pytest

from engine.preload import _BLOCK, _sum


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 15, 16, 17, 18, 31, 64, 100, _BLOCK])
def test_the_sums_are_numpys_bit_for_bit(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        a = rng.normal(size=3 * n) * 10.0 ** rng.uniform(-3.0, 5.0, size=3 * n)
        idx = rng.permutation(3 * n).astype(np.int64)
        i0 = int(rng.integers(0, 2 * n + 1))
        scale = float(rng.normal())
        picked = a[idx[i0:i0 + n]]
        assert _sum(a, idx, i0, n, scale) == np.sum(picked * scale)
        assert _sum(a, idx, i0, n, 1.0) == np.sum(picked)
