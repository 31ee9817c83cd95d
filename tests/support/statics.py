"""The static wheel loads of a two-axle unit on flat ground whose wheels are displaced
(``units[].axles[].wheel_displacement``), in closed form from the event's data.

The unit stands on its springs and tires, taken as linear (each tire's radial stiffness K_T,
each spring's rate, the anti-sway bar's roll stiffness), at the loads of the undisplaced unit
(the lever rule, :func:`support.sedan.lever_loads`) plus what the displacement and the body's
motion change. Unknowns: the body's heave, pitch and roll; per independent axle the two
wheels' jounce, per solid axle its heave and roll relative to the body about its roll centre.
Equations: each independent wheel's spring (with the bar) carries its tire's load change, each
solid axle balances its tires, springs and bar in heave and in roll about its roll centre, and
the whole unit balances its weight and the tire loads in heave, pitch and roll.

The lever arms are the tilted unit's: a tire load acts at its contact point, below its wheel
centre along the wheel plane (the body's roll, and a solid axle's, tilt it), and the masses at
their centres, all measured horizontally (earth axes) from the sprung CG. This is the lever
rule of the tilted unit: a pitch theta moves a contact point by z_w sin(theta) (z_w the wheel
centre's depth below the CG), which for a wheelbase shortened by 0.1 m changes the axle loads
by 5e-4 of the lever rule's. An inclined wheel also stands lower by r (1 / cos - 1).
Equations are solved with scipy's fsolve. No engine code is used.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import fsolve

from .sedan import G, loaded_radius, lever_loads


def _turn(y, z, angle):
    """(y, z) turned by a roll ``angle`` (right side down +: y towards z)."""
    c, s = math.cos(angle), math.sin(angle)
    return y * c - z * s, y * s + z * c


def static_loads(unit: dict, displacement: dict) -> dict:
    """The static tire loads of the two-axle ``unit`` (a unit's event object, single tires) with
    the wheel displacements ``displacement`` {(axle index, side -1 left / +1 right): (dx, dy,
    dz)}: {"loads": [N] per wheel (axle by axle, left first), "pitch", "roll" (the body's,
    nose up +, right side down +, rad), "axle_roll": per solid axle its roll relative to the
    body (rad, right side down +)}."""
    sm = unit["sprung_mass"]
    h, ms = sm["cg_height"], sm["mass"]
    axles = unit["axles"]
    assert len(axles) == 2 and not any(a.get("dual") for a in axles)
    f0 = lever_loads(unit)
    weight = G * (ms + sum(2 * a["unsprung_mass_per_wheel"] for a in axles))
    wheels = []
    for k, ax in enumerate(axles):
        tire = unit["tires"][ax["tire"]]
        r = loaded_radius(f0[k], tire)
        for side in (-1, 1):
            dx, dy, dz = displacement.get((k, side), (0.0, 0.0, 0.0))
            wheels.append({"axle": k, "side": side, "x": ax["x"] + dx, "y": side * ax["track"] / 2 + dy,
                           "zw": h - r + dz, "r": r, "dz": dz, "f0": f0[k],
                           "kt": tire["radial_stiffness"]})
    solid = [a["suspension"]["type"] == "solid" for a in axles]

    def balance(q):
        heave, pitch, roll = q[:3]
        res, loads, x_arm, y_arm, masses = [], [], [], [], []
        for k, ax in enumerate(axles):
            sus, mu = ax["suspension"], ax["unsprung_mass_per_wheel"]
            a1, a2 = q[3 + 2 * k], q[4 + 2 * k]        # the wheels' jounce, or the axle's heave and roll
            ws = [w for w in wheels if w["axle"] == k]
            tilt = roll + (a2 if solid[k] else 0.0)   # the wheels' inclination
            comp = []
            for w in ws:
                # the tire's compression: the body moving down at the wheel, the displacement,
                # less the inclined wheel's (r - d) cos: then the suspension's travel
                down = heave - w["x"] * pitch + w["y"] * roll + w["dz"] - w["r"] * (1.0 / math.cos(tilt) - 1.0)
                if solid[k]:
                    comp.append(down + a1 + w["y"] * a2)
                else:
                    comp.append(down - (a1 if w["side"] < 0 else a2))
            f = [w["f0"] + w["kt"] * c for w, c in zip(ws, comp)]
            if not solid[k]:
                kb = sus["antisway_roll_stiffness"] / ax["track"] ** 2
                springs = [sus["spring_rate"] * a1 + kb * (a1 - a2), sus["spring_rate"] * a2 + kb * (a2 - a1)]
                res += [w["kt"] * c - s for w, c, s in zip(ws, comp, springs)]
                for w in ws:
                    masses.append((mu, w["x"] * math.cos(pitch) + w["zw"] * math.sin(pitch),
                                   _turn(w["y"], w["zw"], roll)[0]))
                    y_arm.append(_turn(w["y"], w["zw"] + w["r"], roll)[0])
            else:
                z_rc = h - sus["roll_center_height"]
                rho = sus["roll_center_height"] - ws[0]["r"]
                half = sus["spring_spacing"] / 2
                # the springs' load changes (pushing the axle down), at -+ half
                springs = [(-half, -sus["spring_rate"] * (a1 - half * a2)),
                           (half, -sus["spring_rate"] * (a1 + half * a2))]
                y_rc = _turn(0.0, z_rc, roll)[0]
                contacts = []
                for w in ws:
                    yc, zc = _turn(w["y"], w["zw"] - z_rc + w["r"], a2)   # from the roll centre
                    contacts.append(_turn(yc, z_rc + zc, roll)[0])
                ym, zm = _turn(0.0, rho, a2)
                y_mass = _turn(ym, z_rc + zm, roll)[0]
                res.append(sum(w["kt"] * c for w, c in zip(ws, comp)) - sum(s for _, s in springs))
                res.append(-sum(fi * (yc - y_rc) for fi, yc in zip(f, contacts))
                           + 2 * mu * G * (y_mass - y_rc) + sum(y * s for y, s in springs)
                           - sus["antisway_roll_stiffness"] * a2)
                y_arm += contacts
                masses.append((2 * mu, ax["x"] * math.cos(pitch) + (z_rc + zm) * math.sin(pitch), y_mass))
            for w, fi in zip(ws, f):
                loads.append(fi)
                x_arm.append(w["x"] * math.cos(pitch) + w["zw"] * math.sin(pitch))
        loads = np.array(loads)
        res += [loads.sum() - weight,
                loads @ np.array(x_arm) - sum(m * G * x for m, x, _ in masses),
                loads @ np.array(y_arm) - sum(m * G * y for m, _, y in masses)]
        return np.array(res), loads

    # fsolve's own verdict is not the test (at this xtol it reports "not making good progress"
    # once the residual is at rounding level): the residual below is
    q = fsolve(lambda q: balance(q)[0], np.zeros(7), xtol=1e-13, full_output=True)[0]
    residual, loads = balance(q)
    assert np.max(np.abs(residual)) < 1e-6 * weight
    return {"loads": loads, "pitch": q[1], "roll": q[2],
            "axle_roll": [q[4 + 2 * k] for k in range(2) if solid[k]]}
