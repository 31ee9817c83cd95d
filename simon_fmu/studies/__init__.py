"""Studies: standard manoeuvres, their metrics and reports, and parameter sweeps on Dask."""
