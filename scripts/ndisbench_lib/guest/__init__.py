"""Guest stage: QEMU and the guest's machine, the emulated air, QMP, the host's sinks and the air capture."""
