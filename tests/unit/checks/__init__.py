"""Tests of scripts/ndisbench_lib/checks/: each check judged from the
agent's facts; test_data/ holds serial logs of real cells."""
