"""Tests of scripts/ndisbench_lib/guest/: QEMU, its air, sinks, QMP and
snapshots."""
