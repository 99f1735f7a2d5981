"""Tests of scripts/ndisbench_lib/report/: KTAP parsing, verdicts and
the outputs."""
