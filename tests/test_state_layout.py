"""The state layout (engine.layout.StateLayout): one description of the state vector, which
the names, the set-up's offsets and the compiled kernels (through the packed P_ENV) all
use. Checked against the names each block's states carry, for events with every block."""
from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import layout as L

FIRST = {"body": "X", "wheel": "dz", "axle": "heave", "tire": "kx", "connection": "hitch.failed",
         "powertrain": "engine_speed", "steering": "steering.angle", "collision": "collision.contact",
         "vertex": "approach", "entry": "entry_face", "pair": "face_of_",
         "damage": "damage.dx"}


@pytest.mark.parametrize("event", [None, engine.setup.event.TRACTOR_SEMITRAILER_EVENT,
                                   engine.setup.event.DOUBLE_EVENT, engine.setup.event.TWO_CARS_EVENT])
def test_every_block_starts_where_its_names_do_and_the_kernels_read_the_same(event):
    sim = engine.Simulation(engine.load_event(event))
    lay = sim.layout
    assert lay.size == sim.y.size == len(sim.state_names)
    seen = 0
    for block, per, _ in L.STATE_BLOCKS:
        n = lay.counts[block]
        seen += per * n
        for item in range(n):
            name = sim.state_names[lay.at(block, item)]
            assert FIRST[block] in name.rsplit(".", 1)[-1] or name.endswith(FIRST[block]) \
                or FIRST[block] in name, (block, item, name)
        with pytest.raises(IndexError):
            lay.at(block, max(n, 1))
    assert seen == lay.size
    bases = L.state_bases(sim.model)
    assert bases == tuple(lay.base[b] for b in ("wheel", "axle", "tire", "connection",
                                                "powertrain", "steering"))
    assert sim.model.P_ENV[L.E_COLL_BASE] == lay.base["collision"]
    assert sim.model.P_ENV[L.E_DMG_BASE] == lay.base["damage"]
    if event == engine.setup.event.TWO_CARS_EVENT:
        assert lay.counts["pair"] == 1 and lay.counts["entry"] == lay.counts["vertex"] > 0
    assert np.all(np.isfinite(sim.y))
