"""A check that asks for a cell of its own (Check.own_cell: `planted`):
the device rows are all devices, cell/plan.py cells() gives such a check
one bare guest per kernel named after it (never a place in a device row's
cell), the runner runs and names that cell, and `--device planted` is
one line pointing at `--check planted`."""
import argparse
import pathlib
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib import cell, devices, kernels
from ndisbench_lib.build.modules import PLANT_MODULE
from ndisbench_lib.cell import runner
from ndisbench_lib.checks import registry
from ndisbench_lib.commands import cli, selftest
from ndisbench_lib.errors import BenchError
from ndisbench_lib.report import report
from ndisbench_lib.report.verdict import PASS, Verdict

EXP = kernels.load_expectations()


class DeviceRowsTest(unittest.TestCase):
    def test_every_row_is_a_device(self):
        """A row is a QEMU model driven by a wrapper or its own driver, or
        the one bare guest `none`: no row stands for a check's setup."""
        for d in devices.TARGETS:
            if not d.model:
                self.assertEqual((d.label, d.variant), ("none", ""),
                                 f"{d.label}: a row without a device")
            else:
                self.assertIn(d.variant, ("", "wext") + devices.RECOVERY +
                              devices.SEND_RULE_VARIANTS, d.label)
        self.assertNotIn("planted", devices.NAMES)
        self.assertFalse(hasattr(devices, "PLANTED"))

    def test_no_row_has_the_name_of_a_check_with_its_own_cell(self):
        own = [c.name for c in registry.all_checks() if c.own_cell]
        self.assertIn("planted", own)
        self.assertFalse(set(own) & set(devices.NAMES), own)


class OwnCellCheckTest(unittest.TestCase):
    def test_it_applies_to_no_row_and_only_when_asked(self):
        """Its cells are added per kernel whenever it is selected, so a run
        without --check must not select it (the default matrix keeps its
        cells)."""
        for check in registry.all_checks():
            if check.own_cell:
                self.assertEqual(check.devices, (), check.name)
                self.assertFalse(check.default, check.name)
                self.assertTrue(check.selectable, check.name)


class CellsTest(unittest.TestCase):
    def cells(self, rows, wanted):
        return cell.plan.cells(rows, registry.select(wanted))

    def test_planted_gets_a_bare_cell_of_its_own(self):
        got = self.cells([], ["build", "planted", "sandbox"])
        self.assertEqual(len(got), 1)
        device, checks = got[0]
        self.assertEqual(checks, ("build", "planted", "sandbox"))
        self.assertEqual(device.label, "planted")
        self.assertEqual((device.model, device.qemu_args, device.ifname,
                          device.fixture, device.wrapper, device.variant),
                         ("", (), "", "", "", ""))
        self.assertNotIn(device.label, devices.DEVICES)
        need = cell.plan.needs(device, checks)
        self.assertEqual((need.roles, need.extras, need.wrapper),
                         ((), (PLANT_MODULE,), False))
        self.assertEqual(need.by_check["planted"], (PLANT_MODULE,))

    def test_beside_device_rows_it_is_in_none_of_their_cells(self):
        rows = devices.select(["none", "e1000"])
        got = self.cells(rows, ["build", "load", "planted", "sandbox"])
        self.assertEqual([(d.label, cs) for d, cs in got], [
            ("none", tuple(registry.for_device(
                rows[0], ["build", "load", "sandbox"]))),
            ("e1000", tuple(registry.for_device(
                rows[1], ["build", "load", "sandbox"]))),
            ("planted", ("build", "planted", "sandbox"))])

    def test_asked_for_alone_it_runs_no_row(self):
        """`run --check planted`: the rows' cells would hold nothing but
        build; only the check's own cells run."""
        got = self.cells(devices.select(None), ["build", "planted"])
        self.assertEqual([(d.label, cs) for d, cs in got],
                         [("planted", ("build", "planted"))])

    def test_rows_keep_their_cells_without_it(self):
        """Without an own-cell check the rows' cells are as before: a
        host-side selection still runs on every row."""
        rows = devices.select(None)
        for wanted in (registry.default_names() + ["build"], ["build"],
                       ["build", "survive"]):
            selected = registry.select(wanted)
            want = [(d.label, tuple(registry.for_device(d, selected)))
                    for d in rows]
            self.assertEqual([(d.label, cs) for d, cs in
                              cell.plan.cells(rows, selected)],
                             [w for w in want if w[1]], wanted)


class RunnerTest(unittest.TestCase):
    def test_one_cell_per_kernel_named_after_the_check(self):
        ks = {k.name: k for k in kernels.load_kernels()}
        matrix = runner.Matrix([ks["src-6.1"], ks["debug-6.1"]], [],
                               registry.select(["build", "planted"]), EXP)
        planned = []

        def run_cell(prep, plan, *args, **kw):
            planned.append((prep.kernel.name, plan.device.label,
                            plan.checks, plan.folder.name))
            result = report.CellResult(prep.kernel.name,
                                       prep.kernel.policy.name, plan.row,
                                       "x", wrapper=plan.device.wrapper)
            result.verdicts = {c: Verdict(PASS, "ok") for c in plan.checks}
            return result

        built = []

        def prepare(kernel, cache, exp, roles, src=None, extras=(), **kw):
            built.append((kernel.name, list(roles), list(extras)))
            return cell.plan.Prepared(kernel)

        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(runner, "prepare", prepare), \
                mock.patch.object(runner, "fetch_ahead",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "run_cell", run_cell), \
                mock.patch.object(runner, "host_parts",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "resolve_accel",
                                  lambda *a, **kw: "tcg"), \
                mock.patch.object(runner, "say", lambda *a: None):
            result = runner.run(matrix, None, pathlib.Path(tmp), 1, 10,
                                "auto")
        self.assertEqual(sorted(planned), [
            ("debug-6.1", "planted", ("build", "planted"),
             "debug-6.1__planted"),
            ("src-6.1", "planted", ("build", "planted"),
             "src-6.1__planted")])
        self.assertEqual(sorted(built), [
            ("debug-6.1", [], [PLANT_MODULE]),
            ("src-6.1", [], [PLANT_MODULE])])
        self.assertEqual([(c.kernel, c.device) for c in result.cells],
                         [("src-6.1", "planted"), ("debug-6.1", "planted")])
        self.assertEqual(result.checks, ["build", "planted"])

    def test_the_test_commands_planted_stage_asks_for_the_check(self):
        ks = [k for k in kernels.load_kernels()]
        full = runner.Matrix(ks, devices.select(None),
                             registry.select(registry.default_names() +
                                             ["build"]), EXP)
        seen = []
        with mock.patch.object(selftest, "e2e",
                               lambda m, args: seen.append(m()) or (0, 0)):
            selftest.planted(lambda: full, argparse.Namespace())
        (matrix,) = seen
        self.assertEqual([k.name for k in matrix.kernels],
                         ["src-6.1", "debug-6.1"])
        self.assertEqual([(d.label, cs) for d, cs in cell.plan.cells(
            matrix.devices, matrix.checks)],
            [("planted", ("build", "planted", "sandbox"))])


class DevicePlantedTest(unittest.TestCase):
    def test_device_planted_names_the_check_to_use(self):
        args = cli.parser().parse_args(["run", "--device", "planted"])
        with self.assertRaises(BenchError) as caught:
            cli._matrix(args)
        self.assertEqual(str(caught.exception),
                         "--device planted: not a device row; the planted "
                         "check runs in a cell of its own: use --check "
                         "planted")

    def test_other_unknown_rows_are_still_unknown(self):
        args = cli.parser().parse_args(["run", "--device", "nosuch"])
        with self.assertRaisesRegex(BenchError, r"^unknown device\(s\) "
                                                r"nosuch \(known: none, "):
            cli._matrix(args)


if __name__ == "__main__":
    unittest.main()
