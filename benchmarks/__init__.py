"""Benchmarks: `make bench` runs every module here; figures go to docs/performance.md."""
