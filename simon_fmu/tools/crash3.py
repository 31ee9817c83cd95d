"""CRASH3 crush stiffness coefficients A and B from full-width frontal rigid-barrier tests.

``python -m simon_fmu crash3-coefficients --mass KG --speed KM_H --width M --crush C1 ... C6``
prints A (N/m), B (N/m^2) and G (J/m) of one test, and the event's ``collision`` values that
carry them (``crush_a.front``, ``crush_stiffness.front``).

Campbell's method, as CRASH3 uses it (K. L. Campbell, "Energy basis for collision severity",
SAE 740565, 1974; NHTSA, CRASH3 User's Guide and Technical Manual, DOT HS 805 732, 1981):

* the residual crush profile C1..Cn, measured at n equally spaced points across the damage
  width w, is averaged by the trapezoid rule, C = (C1/2 + C2 + ... + C(n-1) + Cn/2)/(n - 1)
  (:func:`average_crush`);
* the impact speed is linear in that crush, V = b0 + b1 C, with b0 the speed below which the
  barrier leaves no permanent crush (assumed, :data:`B0`) and b1 = (V - b0)/C from the test;
* force per unit width is linear in crush, F/w = A + B C, with A = m b0 b1 / w,
  B = m b1^2 / w and G = A^2 / (2 B) = m b0^2 / (2 w), so that the crush energy
  w (A C + B C^2/2 + G) equals the kinetic energy m V^2 / 2 of the test
  (:func:`coefficients`).

Two or more tests of one vehicle at different speeds give b0 and b1 without assuming b0: the
least-squares line of V on C (:func:`speed_line`). And the crush a barrier impact leaves with
given A and B is the positive root of w (A C + B C^2/2 + G) = m V^2 / 2
(:func:`barrier_crush`).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import NamedTuple, Sequence

#: The no-damage speed b0 (m/s): 8 km/h (5 mph), the value customary for frontal barrier data
#: (docs/validation.md, "Deriving A and B").
B0 = 8.0 / 3.6


class Coefficients(NamedTuple):
    """One test's Campbell line and CRASH3 coefficients (SI)."""

    crush: float      # trapezoid-average residual crush C, m
    b0: float         # no-damage speed, m/s
    b1: float         # slope of impact speed on crush, 1/s
    A: float          # N/m
    B: float          # N/m^2
    G: float          # J/m


def average_crush(profile: Sequence[float]) -> float:
    """The trapezoid-rule mean of a crush profile measured at equally spaced points (m)."""
    c = [float(x) for x in profile]
    if len(c) < 2:
        raise ValueError("a crush profile has at least two points (C1, C2)")
    if min(c) < 0.0:
        raise ValueError("a crush depth is not negative")
    return (sum(c) - (c[0] + c[-1]) / 2.0) / (len(c) - 1)


def coefficients(mass: float, speed: float, width: float, profile: Sequence[float],
                 b0: float = B0) -> Coefficients:
    """A, B and G of one full-width frontal barrier test: ``mass`` (kg), impact ``speed``
    (m/s), damage ``width`` (m), residual crush ``profile`` (m), no-damage speed ``b0`` (m/s)."""
    if mass <= 0.0 or width <= 0.0:
        raise ValueError("the mass and the damage width are positive")
    c = average_crush(profile)
    if c <= 0.0 or speed <= b0:
        raise ValueError("a test with crush at an impact speed above b0 is needed")
    b1 = (speed - b0) / c
    a, b = mass * b0 * b1 / width, mass * b1 * b1 / width
    return Coefficients(c, b0, b1, a, b, a * a / (2.0 * b))


def speed_line(speeds: Sequence[float], crushes: Sequence[float]) -> tuple[float, float]:
    """b0 and b1 of the least-squares line V = b0 + b1 C through tests of one vehicle at
    different speeds (m/s against the average crush, m)."""
    n = len(speeds)
    if n < 2 or len(crushes) != n or max(crushes) == min(crushes):
        raise ValueError("two or more tests with different crush are needed")
    mc, mv = sum(crushes) / n, sum(speeds) / n
    b1 = (sum((c - mc) * (v - mv) for c, v in zip(crushes, speeds))
          / sum((c - mc) ** 2 for c in crushes))
    return mv - b1 * mc, b1


def barrier_crush(mass: float, speed: float, width: float, a: float, b: float) -> float:
    """The crush C (m) whose CRASH3 energy w (A C + B C^2/2 + G), G = A^2/(2B), takes the
    kinetic energy of ``mass`` (kg) at ``speed`` (m/s) into a rigid barrier over ``width``
    (m); 0 below the no-damage speed."""
    g = a * a / (2.0 * b)
    e = 0.5 * mass * speed * speed / width - g
    return max(0.0, (-a + math.sqrt(a * a + 2.0 * b * e)) / b) if e > 0.0 else 0.0


def main(args: argparse.Namespace) -> int:
    """The ``crash3-coefficients`` command: print one test's coefficients (exit status 2 and
    one line on stderr for a test they cannot come from)."""
    try:
        k = coefficients(args.mass, args.speed / 3.6, args.width, args.crush, args.b0 / 3.6)
    except ValueError as e:
        print(f"crash3-coefficients: {e}", file=sys.stderr)
        return 2
    print(f"average crush C  {k.crush:.4f} m")
    print(f"b0 {k.b0 * 3.6:.2f} km/h, b1 {k.b1:.3f} 1/s")
    print(f"A  {k.A:.1f} N/m\nB  {k.B:.1f} N/m^2\nG  {k.G:.1f} J/m")
    print("event (units[].collision):")
    print(json.dumps({"crush_a": {"front": round(k.A, 1)},
                      "crush_stiffness": {"front": round(k.B, 1)}}))
    return 0


def add_parser(commands) -> argparse.ArgumentParser:
    """The ``crash3-coefficients`` subcommand's arguments."""
    p = commands.add_parser("crash3-coefficients",
                            help="CRASH3 A and B of a full-width frontal barrier test "
                                 "(Campbell's method)")
    p.add_argument("--mass", type=float, required=True, help="test mass, kg")
    p.add_argument("--speed", type=float, required=True, help="impact speed, km/h")
    p.add_argument("--width", type=float, required=True, help="damage width, m")
    p.add_argument("--crush", type=float, nargs="+", required=True, metavar="C",
                   help="residual crush C1 .. Cn at equally spaced points across the width, m")
    p.add_argument("--b0", type=float, default=B0 * 3.6,
                   help="no-damage speed, km/h (default: %(default).0f)")
    return p
