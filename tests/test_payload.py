"""Payloads and occupants (Eq. 40-46, engine.setup.payload) against the parallel-axis theorem by hand."""
import pytest

from engine.setup.payload import adjusted, sprung_properties

REL = 1e-15          # measured: exact (0) for the hand case, a few 1e-16 at most


def _unit(payloads=(), occupants=()):
    return {"sprung_mass": {"mass": 1000.0, "inertia": [100.0, 200.0, 300.0], "Ixz": 15.0, "cg_height": 0.8},
            "payloads": list(payloads), "occupants": list(occupants)}


def test_one_payload_by_hand():
    """1000 kg body, 250 kg payload at r = (2, 1, -0.5) with its own (10, 20, 30) kg m^2.
    Eq. 40-42: m = 1250, eta = 0.2, Delta = (0.4, 0.2, -0.1). Two bodies about their common CG:
    I = I_1 + I_2 + mu d_perp^2 with the reduced mass mu = m_1 m_2 / (m_1 + m_2) = 200 kg:
    Ix = 110 + 200 (1 + 0.25) = 360, Iy = 220 + 200 (4 + 0.25) = 1070, Iz = 330 + 200 (4 + 1)
    = 1330, Ixz = 15 + 200 * 2 * (-0.5) = -185; the CG 0.1 m higher (z down)."""
    p = sprung_properties(_unit([{"name": "box", "mass": 250.0, "inertia": [10.0, 20.0, 30.0],
                                  "position": [2.0, 1.0, -0.5]}]))
    assert p.mass == 1250.0
    assert p.delta == pytest.approx((0.4, 0.2, -0.1), rel=REL)
    assert p.inertia == pytest.approx((360.0, 1070.0, 1330.0), rel=REL)
    assert p.Ixz == pytest.approx(-185.0, rel=REL)
    assert p.cg_height == pytest.approx(0.9, rel=REL)
    # Eq. 43: a component at (1.5, -0.7, 0.3) from the original CG
    assert adjusted((1.5, -0.7, 0.3), p.delta) == pytest.approx((1.1, -0.9, 0.4), rel=REL)


def test_the_printed_sums_are_not_the_theorem():
    """Eq. 44-46 as printed, dV_x = Delta_y + Delta_z and dP_x = r_y + r_z - dV_x, give
    Ix = 100 + 10 + 1000 (0.1)^2 + 250 (0.4)^2 = 160 for the case above, not 360: a payload
    straight across (r_y = -r_z) would add no roll inertia at all."""
    d, r = (0.4, 0.2, -0.1), (2.0, 1.0, -0.5)
    dv_x = d[1] + d[2]
    printed = 100.0 + 10.0 + 1000.0 * dv_x ** 2 + 250.0 * (r[1] + r[2] - dv_x) ** 2
    assert printed == pytest.approx(160.0)
    p = sprung_properties(_unit([{"name": "box", "mass": 250.0, "inertia": [10.0, 20.0, 30.0], "position": list(r)}]))
    assert p.inertia[0] == pytest.approx(360.0, rel=REL) and abs(p.inertia[0] - printed) > 100.0


def test_payloads_and_occupants_together():
    """A payload and two occupants: the CG at the mass-weighted mean of the four bodies and each
    inertia the sum of the bodies' own plus m d_perp^2 about that CG, by hand:
    bodies (m; r): body (1000; 0, 0, 0), payload (500; -2, 0, 0), occupants (100; 1, -0.4, -0.3)
    and (100; 1, 0.4, -0.3): m = 1700, Delta = (-800/1700, 0, -60/1700)."""
    bodies = [{"name": "cargo", "mass": 500.0, "inertia": [40.0, 50.0, 60.0], "position": [-2.0, 0.0, 0.0]}]
    seats = [{"name": n, "mass": 100.0, "inertia": [5.0, 5.0, 2.0], "position": [1.0, y, -0.3]}
             for n, y in (("driver", -0.4), ("passenger", 0.4))]
    p = sprung_properties(_unit(bodies, seats))
    m = 1700.0
    dx, dz = -800.0 / m, -60.0 / m
    assert p.mass == m and p.delta == pytest.approx((dx, 0.0, dz), rel=REL)
    pts = [(1000.0, (0.0, 0.0, 0.0)), (500.0, (-2.0, 0.0, 0.0)), (100.0, (1.0, -0.4, -0.3)), (100.0, (1.0, 0.4, -0.3))]
    own = (100.0 + 40.0 + 10.0, 200.0 + 50.0 + 10.0, 300.0 + 60.0 + 4.0)
    ix = own[0] + sum(mk * ((y - 0.0) ** 2 + (z - dz) ** 2) for mk, (x, y, z) in pts)
    iy = own[1] + sum(mk * ((x - dx) ** 2 + (z - dz) ** 2) for mk, (x, y, z) in pts)
    iz = own[2] + sum(mk * ((x - dx) ** 2 + y ** 2) for mk, (x, y, z) in pts)
    ixz = 15.0 + sum(mk * (x - dx) * (z - dz) for mk, (x, y, z) in pts)
    assert p.inertia == pytest.approx((ix, iy, iz), rel=REL)
    assert p.Ixz == pytest.approx(ixz, rel=REL)
    # the same about the original CG, moved to the new one (the theorem the other way round)
    ix0 = own[0] + sum(mk * (y ** 2 + z ** 2) for mk, (x, y, z) in pts)
    assert p.inertia[0] == pytest.approx(ix0 - m * dz ** 2, rel=REL)


def test_no_payload_leaves_the_sprung_mass_alone():
    p = sprung_properties(_unit())
    assert p == (1000.0, (100.0, 200.0, 300.0), 15.0, (0.0, 0.0, 0.0), 0.8)
