"""Tests of the top-level modules of scripts/ndisbench_lib: kernels, paths,
proc, subject, userdriver, buildlog."""
