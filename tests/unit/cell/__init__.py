"""Tests of scripts/ndisbench_lib/cell/: planning, running and judging
one cell."""
