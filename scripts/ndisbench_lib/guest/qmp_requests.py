"""The host's half of the checks that change the machine under a running
guest: the agent prints a request on the console and the host answers it
over QMP.

- hotplug: "# hotplug_request: unplug" (while a TCP stream runs) is a
  device_del of the WLAN device; "# hotplug_request: replug" (once the
  interface is gone) a device_add of the same device.
- roam: "# roam_request: drop" is an object-del of the access point the
  station is associated to (air.ROAM_FROM).
"""
from typing import Dict, List, Optional, Tuple

from . import qmp
from ..errors import BenchError

PREFIXES = ("# hotplug_request: ", "# roam_request: ")


class QmpRequests:
    def __init__(self, device_spec: str = "", roam_ap: str = "") -> None:
        """device_spec: the `-device` text of the device hotplug removes
        and re-adds (it must carry an id=); roam_ap: the id of the AP the
        roam check removes."""
        self.actions: Dict[str, Tuple[str, Dict[str, str]]] = {}
        if device_spec:
            device = qmp.device_options(device_spec)
            if "id" not in device:
                raise BenchError(f"-device {device_spec}: hotplug needs an "
                                 f"id=")
            self.actions["hotplug_request: unplug"] = (
                "device_del", {"id": device["id"]})
            self.actions["hotplug_request: replug"] = ("device_add", device)
        if roam_ap:
            self.actions["roam_request: drop"] = ("object-del",
                                                  {"id": roam_ap})
        self.qmp = qmp.QmpSocket()
        self.socket = self.qmp.path
        self.errors: List[str] = []

    def qemu_args(self) -> List[str]:
        return self.qmp.qemu_args()

    def on_line(self, text: str) -> Optional[str]:
        """Console line hook for machine.boot(): a note for the log when it
        acted on a request."""
        if not text.startswith(PREFIXES):
            return None
        request = text[2:].strip()
        try:
            if request not in self.actions:
                raise BenchError("not a request of this cell")
            command, arguments = self.actions[request]
            client = self.qmp.connect()
            try:
                client.execute(command, dict(arguments))
            finally:
                client.close()
        except BenchError as exc:
            self.errors.append(f"{request}: {exc}")
            return self.errors[-1]
        return f"QMP {command} {arguments['id']} done"

    def close(self) -> None:
        self.qmp.close()
