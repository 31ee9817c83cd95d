"""The native FMU: the engine's kernels compiled ahead of time, an FMI 2.0 runtime in C, and the
packed event in a documented binary file (docs/native.md). No Python at run time."""
