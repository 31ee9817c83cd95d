# `make demo` and `make test` are all a newcomer needs; both create .venv first.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
FMU := out/SimonCar.fmu
# what the FMUs are built from: the Python, the data and the C runtimes (a change to
# simon_fmu/native/c/*.c alone rebuilt no native FMU before)
SOURCES := $(shell find engine model_description simon_fmu -name '*.py' -o -name '*.json' \
	-o -name '*.c' -o -name '*.h' 2>/dev/null)

.PHONY: .venv setup fmu native standalone demo demo-truck demo-terrain test bench crosscheck clean

# System packages (tools/system-packages.txt: gcc, and oneTBB for the ecos importer tests),
# installed with apt-get when missing; demo and test run this first.
setup:
	@bash tools/setup_system.sh

# The environment is re-created only when pyproject.toml changes.
.venv: $(STAMP)

$(STAMP): pyproject.toml
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

$(FMU): $(STAMP) $(SOURCES)
	$(PY) -m simon_fmu build -o $@

fmu: $(FMU)

# the FMU for a Linux tool when the native build cannot repeat a parameter: carries its own
# Python (docs/standalone.md)
STANDALONE_FMU := out/SimonCar-standalone.fmu
$(STANDALONE_FMU): $(STAMP) $(SOURCES)
	$(PY) -m simon_fmu build --standalone -o $@

standalone: setup $(STANDALONE_FMU)

demo: setup $(FMU)
	$(PY) examples/lane_change.py
	@echo "$(FMU) runs only next to .venv; for other tools and machines: make native"

# the reference tractor-semitrailer's lane change (examples/tractor_semitrailer_lane_change.py)
TRUCK_FMU := out/SimonTractorSemitrailer.fmu
$(TRUCK_FMU): $(STAMP) $(SOURCES)
	$(PY) -m simon_fmu build engine/data/tractor-semitrailer.json -o $@

demo-truck: setup $(TRUCK_FMU)
	$(PY) examples/tractor_semitrailer_lane_change.py --fmu $(TRUCK_FMU)

# the reference sedan braking across a wet patch on a crowned mesh road
# (examples/crowned_road_wet_patch.py writes the mesh and the event, and builds their FMU)
demo-terrain: setup $(STAMP)
	$(PY) examples/crowned_road_wet_patch.py --rebuild

# every test, the slow groups too (first, each file whole on one worker: tests/conftest.py);
# the engine is compiled once before the workers start, and each FMU is built once for all
# runs with the same sources (tests/support/fmus.py, .pytest_cache/simon-fmus/)
test: setup $(STAMP)
	$(PY) -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

# the native FMU with all three platforms, and the default car's FMU on pythonfmu's library
# (their sizes and call costs are benchmarked)
NATIVE_FMU := out/SimonCar-native.fmu
$(NATIVE_FMU): $(STAMP) $(SOURCES)
	$(PY) -m simon_fmu build --native -o $@

# the FMU to hand to other tools and machines (docs/native.md)
native: setup $(NATIVE_FMU)

PYTHONFMU_FMU := out/SimonCarPythonfmu.fmu
$(PYTHONFMU_FMU): $(STAMP) $(SOURCES)
	$(PY) -m simon_fmu build --library pythonfmu -o $@

# the development FMU with the engine and the peer, then the standalone FMU's own figures
# (its workers' too), then the tractor-semitrailer's (engine, FMU and the peer set up as its
# tractor), the native FMU's, the call costs, collisions, the mesh road, sweeps and sizes, and
# the agreement figures (tools/measure_agreement.py); each writes its report to
# benchmarks/results/, and the docs' figures are rendered from those last
# (docs/benchmarks.md, "How the numbers stay current")
RESULTS := benchmarks/results
bench: $(FMU) $(STANDALONE_FMU) $(TRUCK_FMU) $(NATIVE_FMU) $(PYTHONFMU_FMU)
	$(PY) -m pip install -q -e '.[test,bench]'
	$(PY) benchmarks/speed.py --fmu $(FMU)
	$(PY) benchmarks/speed.py --fmu $(STANDALONE_FMU) --json $(RESULTS)/speed-standalone.json \
		--only fmu-10ms fmu-1ms fmu-1ms-buffers fmu-simulate cold-start
	$(PY) benchmarks/speed.py --fmu $(FMU) --json $(RESULTS)/speed-fmu-only.json \
		--only fmu-1ms fmu-10ms cold-start --repeat 2
	$(PY) benchmarks/speed.py --fmu $(STANDALONE_FMU) --json $(RESULTS)/speed-fmu-only-standalone.json \
		--only fmu-1ms fmu-10ms cold-start --repeat 2
	$(PY) benchmarks/standalone_worker.py --fmu $(STANDALONE_FMU)
	$(PY) benchmarks/speed.py --event engine/data/tractor-semitrailer.json --fmu $(TRUCK_FMU)
	$(PY) benchmarks/native.py
	$(PY) benchmarks/call_overhead.py $(FMU) $(PYTHONFMU_FMU)
	$(PY) benchmarks/collision.py
	$(PY) benchmarks/mesh.py
	$(PY) benchmarks/sweep.py --fmu $(FMU)
	$(PY) benchmarks/sizes.py $(NATIVE_FMU)
	$(PY) benchmarks/sizes.py $(STANDALONE_FMU)
	$(PY) tools/measure_agreement.py
	$(PY) tools/update_doc_numbers.py

# an FMI cross-check folder for the default car, checked by fmpy's validator
crosscheck: $(FMU)
	$(PY) -m simon_fmu.tools.crosscheck $(FMU) out/crosscheck --stop-time 5 --step-size 0.01

clean:
	rm -rf out build *.egg-info
