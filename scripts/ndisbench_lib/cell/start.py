"""How one cell's guest comes up: a plain boot, or a restore of the saved
boot of the same machine, or a boot saved for the next cell."""
import dataclasses
import os
import pathlib
import shutil
from typing import Callable, List, Optional, Sequence

from ..guest import machine, snapshot
from ..progress import say
from .compose import guest_command
from .parts import HostParts
from .plan import CellPlan, Prepared

LineHook = Callable[[str], Optional[str]]


class GuestStart:
    """How one cell's guest comes up: a plain boot; or, for a plan with
    snapshot set, a restore of the saved boot of the same machine
    (guest/snapshot.py), else a boot saved at the agent's READY_LINE for
    the next run. A snapshot QEMU says it cannot load is discarded and the
    cell boots instead."""

    def __init__(self, plan: CellPlan, prep: Prepared, parts: HostParts,
                 initrd: pathlib.Path, append: str,
                 extra_args: Sequence[str]) -> None:
        self.plan, self.prep, self.parts = plan, prep, parts
        self.initrd, self.extra = initrd, list(extra_args)
        self.console: Optional[machine.ConsoleParams] = None
        self.saver: Optional[snapshot.Saver] = None
        self.restorer: Optional[snapshot.Restorer] = None
        self.restored: Optional[snapshot.Snapshot] = None
        self.fd: Optional[int] = None
        self.how = "booted"
        if not plan.snapshot:
            self.cmd = guest_command(plan, prep, parts, initrd, append,
                                     self.extra)
            return
        boot_append, self.words = snapshot.split_cmdline(append)
        self.cmd = guest_command(plan, prep, parts, initrd, boot_append,
                                 self.extra)
        qemu = shutil.which(self.cmd[0]) or self.cmd[0]
        self.key = snapshot.key(pathlib.Path(qemu), [
            prep.art.boot_image, initrd] if prep.art else [initrd],
            self.machine_words(boot_append))
        self.label = f"{prep.kernel.name}/{plan.device.label}"
        snap = snapshot.find(parts.cache, self.key)
        self.fd = snapshot.open_state(snap) if snap else None
        if snap is not None and self.fd is not None:
            self.restored = snap
            snapshot.used(snap)
            self.restorer = snapshot.Restorer(self.fd)
            self.how = "restored"
            self.console = machine.ConsoleParams(
                self.words, at_ready=self.restorer.running,
                prefix=snap.boot_log(), pass_fds=(self.fd,),
                note=f"restored from snapshot {self.key} (the boot of "
                     f"{snap.label} saved at the agent's wait)")
        else:
            self._plan_save()

    def _plan_save(self) -> None:
        assert self.prep.art is not None
        self.saver = snapshot.Saver(self.parts.cache, self.key, self.label, {
            "kernel": self.prep.kernel.name,
            "release": self.prep.art.release})
        self.console = machine.ConsoleParams(self.words,
                                             at_ready=self.saver.save)

    def machine_words(self, boot_append: str) -> List[str]:
        """The guest's QEMU command without what is the cell's own (its
        folder, the air capture, -pidfile and QMP sockets): the kernel and
        the initramfs stand by name, their contents are keyed apart."""
        assert self.prep.art is not None
        bare = dataclasses.replace(self.plan, extra_qemu_args=(),
                                   folder=None, keep_air=False)
        words = guest_command(bare, self.prep, self.parts, self.initrd,
                              boot_append)
        names = {str(self.prep.art.boot_image): "{kernel}",
                 str(self.initrd): "{initrd}"}
        return [names.get(w, w) for w in words[1:]]

    @property
    def verb(self) -> str:
        return "restoring" if self.restored else "booting"

    def boot(self, log: pathlib.Path, timeout: float,
             on_line: Optional[LineHook],
             on_start: Optional[Callable[[int], None]] = None
             ) -> machine.BootResult:
        args = self.cmd + (self.restorer.qemu_args() if self.restorer
                           else self.saver.qemu_args() if self.saver
                           else [])
        result = machine.boot(args, log, timeout, on_line=on_line,
                              console=self.console, on_start=on_start)
        why = snapshot.load_error(result.serial, pathlib.Path(
            self.cmd[0])) if self.restored else ""
        if why:
            # QEMU refused the stream (another build, a torn file): keep
            # its log beside, drop the snapshot, boot. Any other end (a
            # kill, a crash) is the cell's own result.
            log.rename(log.with_name("serial-restore.log"))
            say("cell", f"WARNING: {self.label}: snapshot {self.key} did "
                        f"not load ({why}; serial-restore.log); booting")
            snapshot.discard(self.restored)
            self.close()
            self.restored, self.restorer, self.how = None, None, "booted"
            self._plan_save()
            return self.boot(log, timeout, on_line, on_start)
        if self.saver is not None:
            self.how = "saved" if self.saver.publish(result.serial) \
                else "booted"
        return result

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.saver is not None:
            self.saver.close()
        if self.restorer is not None:
            self.restorer.close()

