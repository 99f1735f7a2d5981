"""The host's half of the hotplug and roam checks: QMP requests answered
from the console lines, and the judge of the agent's facts."""
import json
import pathlib
import shutil
import socket
import tempfile
import threading
import unittest

from helpers import judge
from ndisbench_lib import kernels
from ndisbench_lib.report import ktap
from ndisbench_lib.guest import qmp, qmp_requests
from ndisbench_lib.errors import BenchError

EXP = kernels.load_expectations()
SPEC = "usb-rtl8187,id=wlan0,bus=xhci.0,air=air0,mac=52:54:00:12:34:58"


class FakeQemu:
    """A QMP server on a unix socket: records commands, fails device_add
    when told to."""

    def __init__(self, path: pathlib.Path, fail_add: bool = False):
        self.commands = []
        self.fail_add = fail_add
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn, conn.makefile("rw") as f:
                f.write(json.dumps({"QMP": {"version": {}}}) + "\n")
                f.flush()
                for line in f:
                    cmd = json.loads(line)
                    self.commands.append(cmd)
                    # An event first: the client must skip it.
                    f.write(json.dumps({"event": "DEVICE_DELETED"}) + "\n")
                    if cmd["execute"] == "device_add" and self.fail_add:
                        f.write(json.dumps({"error": {
                            "desc": "Duplicate device ID 'wlan0'"}}) + "\n")
                    else:
                        f.write(json.dumps({"return": {}}) + "\n")
                    f.flush()

    def close(self):
        self.listener.close()


class HotplugRequestTest(unittest.TestCase):
    def setUp(self):
        self.plug = qmp_requests.QmpRequests(SPEC, "ap0")

    def tearDown(self):
        self.plug.close()

    def test_requests_become_device_del_and_device_add(self):
        qemu = FakeQemu(self.plug.socket)
        try:
            self.assertIsNone(self.plug.on_line("# iw_link: SSID: x"))
            note = self.plug.on_line("# hotplug_request: unplug")
            self.assertIn("device_del wlan0", note)
            note = self.plug.on_line("# hotplug_request: replug")
            self.assertIn("device_add wlan0", note)
            note = self.plug.on_line("# roam_request: drop")
            self.assertIn("object-del ap0", note)
        finally:
            qemu.close()
        sent = [c for c in qemu.commands if c["execute"] != "qmp_capabilities"]
        self.assertEqual(sent[0], {"execute": "device_del",
                                   "arguments": {"id": "wlan0"}})
        self.assertEqual(sent[1]["execute"], "device_add")
        self.assertEqual(sent[1]["arguments"], {
            "driver": "usb-rtl8187", "id": "wlan0", "bus": "xhci.0",
            "air": "air0", "mac": "52:54:00:12:34:58"})
        self.assertEqual(sent[2], {"execute": "object-del",
                                   "arguments": {"id": "ap0"}})
        self.assertEqual(self.plug.errors, [])

    def test_qemu_error_is_kept_not_raised(self):
        qemu = FakeQemu(self.plug.socket, fail_add=True)
        try:
            note = self.plug.on_line("# hotplug_request: replug")
        finally:
            qemu.close()
        self.assertIn("Duplicate device ID", note)
        self.assertEqual(len(self.plug.errors), 1)

    def test_no_qemu_listening_is_an_error_line(self):
        note = self.plug.on_line("# hotplug_request: unplug")
        self.assertIn("hotplug_request: unplug: QMP", note)

    def test_requests_the_cell_did_not_plan_are_refused(self):
        plug = qmp_requests.QmpRequests()
        try:
            note = plug.on_line("# roam_request: drop")
        finally:
            plug.close()
        self.assertIn("not a request of this cell", note)

    def test_device_text_needs_an_id_and_key_values(self):
        with self.assertRaisesRegex(BenchError, "needs an id"):
            qmp_requests.QmpRequests("usb-rtl8187,bus=xhci.0")
        with self.assertRaisesRegex(BenchError, "not key=value"):
            qmp.device_options("usb-rtl8187,id=x,bogus")


HOTPLUG_LOG = """KTAP version 1
1..3
# tainted: 0
ok 1 boot
# ifname: wlan0
# driver: rtl8187
ok 2 bind wlan0
# carrier_ms: 12
ok 3 associate
# target: 10.0.2.2:5000
# hotplug_request: unplug
{unplug}
# hotplug_request: replug
{replug}
# address: 10.0.2.15
# transmitted: 10
# received: {received}
{result} 4 hotplug
# ndisbench-agent: done
"""


def judge_hotplug(streamed=1 << 20, **kw):
    values = {"unplug": "# unplug_ms: 150", "replug": "# replug_ms: 700",
              "received": 10, "result": "ok"}
    values.update(kw)
    log = ktap.parse(HOTPLUG_LOG.format(**values))
    return judge("hotplug", EXP.policies["2.6.25-rc4"], EXP, log, [],
                 0, streamed, "", "rtl8187")


class HotplugJudgeTest(unittest.TestCase):
    def test_good_log_passes(self):
        self.assertEqual(judge_hotplug().status, "pass")

    def test_no_traffic_before_the_unplug_fails(self):
        self.assertIn("no traffic", judge_hotplug(streamed=0).summary)

    def test_interface_that_stays_fails(self):
        verdict = judge_hotplug(unplug="# error: wlan0 still present",
                                replug="", received=0, result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("still present", verdict.summary)

    def test_lost_pings_after_replug_fail(self):
        verdict = judge_hotplug(received=9, result="not ok")
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("echo replies", verdict.summary)


if __name__ == "__main__":
    unittest.main()


ROAM_LOG = """KTAP version 1
1..3
# tainted: 0
ok 1 boot
# ifname: wlan0
ok 2 bind wlan0
# carrier_ms: 12
ok 3 associate
# roam_request: drop
{lost}
# iw_connect_status: {connect}
# carrier_ms: 1655
# iw_link: Connected to {bssid} (on wlan0)
# transmitted: 10
# received: {received}
{result} 4 roam
# ndisbench-agent: done
"""


def judge_roam(**kw):
    values = {"lost": "# lost_ms: 5248", "bssid": "02:00:00:00:04:00",
              "received": 10, "result": "ok", "connect": 0}
    values.update(kw)
    log = ktap.parse(ROAM_LOG.format(**values))
    return judge("roam", EXP.policies["2.6.25-rc4"], EXP, log, [], 0,
                 None, "", "rtl8187", iw_ssid="ndisbench")


class RoamJudgeTest(unittest.TestCase):
    def test_good_log_passes(self):
        self.assertEqual(judge_roam().status, "pass")

    def test_link_that_never_drops_fails(self):
        verdict = judge_roam(lost="# error: link still up", result="not ok")
        self.assertIn("link still up", verdict.summary)

    def test_failed_iw_connect_fails(self):
        verdict = judge_roam(connect=142)
        self.assertEqual(verdict.status, "FAIL")
        self.assertIn("iw connect ndisbench exited 142", verdict.summary)

    def test_back_on_the_removed_ap_fails(self):
        verdict = judge_roam(bssid="02:00:00:00:01:00")
        self.assertIn("BSSID after the roam", verdict.summary)
