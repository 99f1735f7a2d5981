"""Tests of scripts/ndisbench_lib/build/: kernels, modules, chroots,
host tools, the cache."""
