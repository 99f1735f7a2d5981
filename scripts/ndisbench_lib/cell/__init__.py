"""The cell pipeline, the bench's core: a cell is one kernel x device
guest running some checks. plan (what a cell is and needs), parts (what
the cells of a command share), compose (command line, initramfs, QEMU
arguments), start (boot, save, restore), services (sinks and QMP while
the guest runs), judge (the serial read once, the verdicts), run (one
cell's guests). runner runs a matrix of cells (`ndisbench run`), shard
splits it, phases times each cell. run, pair, soak, bisect and bench all
boot their guests through run.run_plan."""
from . import compose, judge, parts, plan, run, services, start  # noqa: F401
