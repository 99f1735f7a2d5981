"""`bench --matrix` times the whole axis (`run --kernel all --arch all`)
warm beside the default matrix, against the goal of five minutes."""
import pathlib
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib import devices, kernels
from ndisbench_lib.cell import runner
from ndisbench_lib.commands import bench, cli
from ndisbench_lib.report import report

EXP = kernels.load_expectations()
KERNELS = {k.name: k for k in kernels.load_kernels()}


def fake_run(calls, starts):
    def run(matrix, cache, out, jobs, timeout, accel, clock=None):
        calls.append(([k.name for k in matrix.kernels], clock))
        cells = [report.CellResult(k.name, "p", "none", f"c/{k.name}",
                                   start=how)
                 for k, how in zip(matrix.kernels, starts)]
        return report.RunResult(f"run-{len(calls)}", accel="tcg",
                                clock=clock, cells=cells)
    return run


class WholeAxisTest(unittest.TestCase):
    def matrix(self, names):
        return runner.Matrix([KERNELS[n] for n in names],
                             devices.select(["none"], None), ["load"], EXP)

    def test_timed_after_the_default_matrix_and_side_by_side(self):
        calls = []
        clock = iter([0.0, 60.0, 100.0, 340.0])
        res = bench.BenchResult("b", "src-6.1", 1)
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(bench.runner, "run",
                                  fake_run(calls, ["restored", "restored",
                                                   "saved"])), \
                mock.patch.object(bench.time, "monotonic",
                                  lambda: next(clock)), \
                mock.patch.object(bench.phases, "summary",
                                  lambda *a: {}), \
                mock.patch.object(bench, "say", lambda *a: None):
            bench.time_matrix(self.matrix(["src-6.1"]), None,
                              pathlib.Path(tmp), 120, "tcg", ("icount",),
                              2, res)
            bench.time_whole_axis(
                self.matrix(["src-6.1", "debian-6.1", "debian-6.1-686"]),
                None, pathlib.Path(tmp), 120, "tcg", 2, res)
        self.assertEqual(calls[1], (["src-6.1", "debian-6.1",
                                     "debian-6.1-686"], "icount"))
        self.assertEqual(res.whole_axis["wall_s"], 240.0)
        self.assertEqual(res.whole_axis["kernels"], 3)
        self.assertEqual(res.whole_axis["starts"],
                         {"restored": 2, "saved": 1})
        text = bench.markdown(res)
        self.assertIn("| matrix | kernels | cells | guests | wall | "
                      "whole axis <= 5 min |", text)
        self.assertIn("| default (`run`) | 1 | 1 | 1 restored | 1m00s |  |",
                      text)
        self.assertIn("| whole axis (`run --kernel all --arch all`) | 3 | "
                      "3 | 2 restored, 1 saved | 4m00s | yes |", text)

    def test_over_five_minutes_is_not_met(self):
        res = bench.BenchResult("b", "src-6.1", 1)
        res.whole_axis = {"run": "r", "wall_s": 301.0, "jobs": 2,
                          "cells": 305, "kernels": 33, "verdicts": {},
                          "starts": {"restored": 305}}
        self.assertIn("| 305 restored | 5m01s | **no** |",
                      bench.markdown(res))

    def test_the_cli_times_every_kernel(self):
        seen = {}

        def run(benched, exp, cache, out, rounds, timeout, accel, names,
                matrix, default, edit, clocks, jobs, whole_axis=None,
                profile_hz=0):
            seen["axis"] = [k.name for k in whole_axis.kernels]
            seen["default"] = [k.name for k in default.kernels]
            return bench.BenchResult("b", "src-6.1", 1)

        args = cli.parser().parse_args(["bench", "--matrix", "--rounds",
                                        "1"])
        with mock.patch.object(bench, "run", run), \
                mock.patch.object(bench, "markdown", lambda r: ""), \
                mock.patch.object(cli, "say", lambda *a: None), \
                mock.patch("sys.stdout"):
            args.func(args)
        every = [k.name for k in kernels.load_kernels()]
        self.assertEqual(seen["axis"], every)
        self.assertLess(len(seen["default"]), len(every))


if __name__ == "__main__":
    unittest.main()
