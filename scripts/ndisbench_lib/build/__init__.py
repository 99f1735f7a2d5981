"""Build stage: the content-addressed cache and what fills it (kernels, modules, QEMU, the agent, fixtures, initramfs)."""
