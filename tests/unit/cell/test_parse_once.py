"""A cell's serial log is parsed once per guest: judging, the kernel's
reports (charge_reports, kernel_problem), the known-disagreement notes,
ktap.txt and the facts all read the one parsed record."""
import collections
import pathlib
import tempfile
import unittest
from unittest import mock

from helpers import agent_log
from ndisbench_lib import devices, kernels
from ndisbench_lib import cell
from ndisbench_lib.guest import machine
from ndisbench_lib.report import ktap

EXP = kernels.load_expectations()

KMSG = ["ndiswrapper: module license taints kernel."]
OOPS = "BUG: kernel NULL pointer dereference, address: 0000000000000000"


def rowed_serial():
    """An agent log whose module load is a marked row with an oops in it:
    every reader of the log (the checks, charge_reports, the notes) has
    something to read."""
    lines = agent_log([{"module": "ndiswrapper", "before": 0, "errno": 0,
                        "after": 12289, "taint": "POE", "kmsg": KMSG}]
                      ).split("\r\n")
    at = next(i for i, line in enumerate(lines)
              if line.startswith("# module: "))
    end = next(i for i, line in enumerate(lines) if " insmod " in line)
    return "\r\n".join(lines[:at] + ["# ndisbench: begin insmod", OOPS] +
                        lines[at:end + 1] + ["# ndisbench: end insmod"] +
                        lines[end + 1:])


class ParseOnceTest(unittest.TestCase):
    def judged_cell(self, check_names, serial):
        """run_plan on a guest whose boot prints serial: (verdicts, how
        many times each parser of the serial ran on each text)."""
        calls = collections.Counter()
        parse, row_lines = ktap.parse, ktap.row_lines

        def counted(fn):
            def wrapper(text):
                if text:
                    calls[(fn.__name__, text)] += 1
                return fn(text)
            return wrapper

        def boot(cmd, log, timeout, on_line=None, console=None,
                 on_start=None):
            return machine.BootResult("done", 0, 3.0, 1.0, serial)

        kernel = kernels.Kernel("k", "debian", EXP.policies["2.6.25-rc4"])
        prep = cell.plan.Prepared(kernel, art=mock.Mock(release="6.1"),
                             base_bits=12288)
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(ktap, "parse", counted(parse)), \
                mock.patch.object(ktap, "row_lines", counted(row_lines)), \
                mock.patch.object(cell.run, "cell_initrd",
                                  return_value=pathlib.Path("/i")), \
                mock.patch.object(cell.start, "guest_command",
                                  return_value=["qemu"]), \
                mock.patch.object(cell.run, "say", lambda *a: None), \
                mock.patch.object(cell.start, "say", lambda *a: None), \
                mock.patch.object(cell.run.machine, "boot", boot):
            run = pathlib.Path(tmp)
            plan = cell.plan.CellPlan(kernel, devices.DEVICES["none"],
                                 tuple(check_names), EXP,
                                 run / "cells" / "k", run)
            parts = cell.parts.HostParts(None, run)
            done = cell.run.run_plan(plan, prep, parts)
        return done.result.verdicts, calls

    def test_serial_parsed_once(self):
        serial = rowed_serial()
        verdicts, calls = self.judged_cell(("load", "taint"), serial)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertEqual(verdicts["load"].summary,
                         f"kernel reported: {OOPS}")
        self.assertEqual(dict(calls), {("parse", serial): 1,
                                       ("row_lines", serial): 1})

    def test_without_rows_still_once(self):
        """No row marks: kernel_problem reads the record too."""
        serial = agent_log([{"module": "ndiswrapper", "before": 0,
                             "errno": 0, "after": 12289, "taint": "POE",
                             "kmsg": KMSG}]
                           ).replace("ok 1 boot", f"{OOPS}\r\nok 1 boot")
        verdicts, calls = self.judged_cell(("load", "taint"), serial)
        self.assertEqual(verdicts["load"].status, "FAIL")
        self.assertEqual(verdicts["load"].summary,
                         f"kernel reported: {OOPS}")
        self.assertEqual(dict(calls), {("parse", serial): 1,
                                       ("row_lines", serial): 1})


class CellFactsTest(unittest.TestCase):
    def test_facts_hold_the_device(self):
        """The checks read the device row itself, not copies of its
        fields."""
        kernel = kernels.Kernel("k", "debian", EXP.policies["2.6.25-rc4"])
        device = devices.DEVICES["bcm43xx/ndiswrapper"]
        plan = cell.plan.CellPlan(kernel, device, ("bind",), EXP)
        boot = machine.BootResult("done", 0, 3.0, 1.0, "")
        facts = cell.judge.cell_facts(plan, cell.plan.Prepared(kernel), boot,
                                      cell.judge.read_serial(""))
        self.assertIs(facts.device, device)
        self.assertEqual((facts.fixture, facts.fixture_sys, facts.iw_ssid),
                         (device.fixture, f"{device.fixture}.sys",
                          device.connect_ssid))


if __name__ == "__main__":
    unittest.main()
