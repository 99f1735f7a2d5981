"""The host's half of the hotplug check: the agent prints a request on
the console ("# hotplug_request: unplug" while a TCP stream runs, then
"...: replug" once the interface is gone) and the host answers it with
device_del / device_add over QMP."""
import pathlib
import shutil
import tempfile
from typing import List, Optional

from . import qmp
from .errors import BenchError

REQUEST = "# hotplug_request: "


class Hotplug:
    def __init__(self, device_spec: str) -> None:
        """device_spec: the `-device` text of the device to unplug (it
        must carry an id=); device_add brings back the same device."""
        self.device = qmp.device_options(device_spec)
        if "id" not in self.device:
            raise BenchError(f"-device {device_spec}: hotplug needs an id=")
        # A short path of our own: unix socket paths are limited to 107
        # bytes and run folders can be deep.
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="ndisbench-qmp-"))
        self.socket = self.dir / "qmp.sock"
        self.errors: List[str] = []

    def qemu_args(self) -> List[str]:
        return ["-qmp", f"unix:{self.socket},server=on,wait=off"]

    def on_line(self, text: str) -> Optional[str]:
        """Console line hook for guest.boot(): a note for the log when it
        acted on a request."""
        if not text.startswith(REQUEST):
            return None
        what = text[len(REQUEST):].strip()
        try:
            client = qmp.Qmp(str(self.socket))
            try:
                if what == "unplug":
                    client.execute("device_del", {"id": self.device["id"]})
                elif what == "replug":
                    client.execute("device_add", dict(self.device))
                else:
                    raise BenchError(f"unknown request '{what}'")
            finally:
                client.close()
        except BenchError as exc:
            self.errors.append(f"hotplug {what}: {exc}")
            return self.errors[-1]
        return f"QMP {'device_del' if what == 'unplug' else 'device_add'} " \
               f"{self.device['id']} done"

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
