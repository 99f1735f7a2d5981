"""run --shard I/N and merge: the split is deterministic, complete,
disjoint and balanced, a shard builds only its own kernels, and merged
shards are the run one `run` of the whole selection writes; merge refuses
what is not one complete split."""
import json
import pathlib
import shutil
import tempfile
import unittest
from unittest import mock

from helpers import REPO  # noqa: F401  (puts scripts/ on sys.path)
from ndisbench_lib import devices, kernels
from ndisbench_lib import cell
from ndisbench_lib.cell import runner, shard
from ndisbench_lib.errors import BenchError
from ndisbench_lib.report import compare, merge, report
from ndisbench_lib.report.verdict import FAIL, PASS, XFAIL, Verdict

EXP = kernels.load_expectations()
KERNELS = {k.name: k for k in kernels.load_kernels()}


def default_cells():
    """Every cell of a plain run: default kernels x default devices."""
    ks = kernels.select(kernels.load_kernels(), None)
    ds = devices.select(None, None)
    return [(k, d, runner.cell_checks(d, ["load"]) or ["x"])
            for k in ks for d in ds]


def keys(cells):
    return [(k.name, d.name, d.wrapper) for k, d, _ in cells]


class SplitTest(unittest.TestCase):
    def records(self, cells, count, durations=None):
        return [shard.plan(cells, shard.Shard(i, count, durations or {}),
                           ["load"]) for i in range(1, count + 1)]

    def test_complete_and_disjoint_for_every_count(self):
        cells = default_cells()
        for count in range(1, 9):
            got = [c for rec in self.records(cells, count)
                   for c in shard.mine(rec)]
            self.assertEqual(sorted(got), sorted(keys(cells)), count)
            self.assertEqual(len(got), len(set(got)), count)

    def test_deterministic_and_independent_of_record_order(self):
        cells = default_cells()
        durations = {shard.cell_key(k, d, w): 1.5 + i
                     for i, (k, d, w) in enumerate(keys(cells))}
        backwards = dict(reversed(list(durations.items())))
        a = self.records(cells, 3, durations)
        b = self.records(cells, 3, backwards)
        self.assertEqual(a, b)
        self.assertEqual(json.dumps(a), json.dumps(self.records(
            cells, 3, durations)))

    def test_balanced_within_one_cell_of_the_mean(self):
        cells = default_cells()
        weights = shard.weights_ms([(k, d) for k, d, _ in cells], {})
        for count in (2, 3, 4, 5):
            shards = shard.split(weights, count)
            loads = [sum(w for w, s in zip(weights, shards) if s == i)
                     for i in range(1, count + 1)]
            mean = sum(weights) / count
            for load in loads:
                self.assertLessEqual(abs(load - mean), max(weights),
                                     (count, loads))

    def test_recorded_durations_move_the_cut(self):
        w = [1000, 1000, 1000, 1000]
        self.assertEqual(shard.split(w, 2), [1, 1, 2, 2])
        self.assertEqual(shard.split([5000, 1000, 1000, 1000], 2),
                         [1, 2, 2, 2])

    def test_a_midpoint_on_a_boundary_goes_to_the_later_shard(self):
        # midpoints 0.5, 2, 3.5 of 4: the second is exactly on 4/2.
        self.assertEqual(shard.split([1, 2, 1], 2), [1, 2, 2])

    def test_contiguous_so_a_kernel_spans_at_most_two_shards(self):
        cells = default_cells()
        for count in (2, 3, 4):
            shards = shard.split(shard.weights_ms(
                [(k, d) for k, d, _ in cells], {}), count)
            self.assertEqual(shards, sorted(shards))
            for name in {k.name for k, _, _ in cells}:
                spans = {s for (k, _, _), s in zip(cells, shards)
                         if k.name == name}
                self.assertLessEqual(len(spans), 2, name)

    def test_more_shards_than_cells_leaves_some_empty(self):
        cells = default_cells()[:2]
        recs = self.records(cells, 5)
        self.assertEqual(sum(len(shard.mine(r)) for r in recs), 2)
        self.assertTrue(any(not shard.mine(r) for r in recs))

    def test_missing_records_are_estimates_per_device_kind(self):
        debug, src = KERNELS["debug-6.1"], KERNELS["src-6.1"]
        none, wrapped = devices.DEVICES["none"], \
            devices.DEVICES["bcm43xx/ndiswrapper"]
        e1000 = devices.DEVICES["e1000"]
        self.assertEqual(shard.weights_ms(
            [(src, none), (debug, none), (src, wrapped), (src, e1000)],
            {"src-6.1/e1000": 7.25}),
            [3000, 3000 * debug.slowdown, 25000, 7250])

    def test_the_record_names_the_split_and_its_inputs(self):
        cells = default_cells()
        a = shard.plan(cells, shard.Shard(1, 2), ["load"])
        self.assertEqual(a["selection"], shard.plan(
            cells, shard.Shard(2, 2), ["load"])["selection"])
        for other in (shard.plan(cells, shard.Shard(1, 3), ["load"]),
                      shard.plan(cells, shard.Shard(1, 2), ["taint"]),
                      shard.plan(cells[1:], shard.Shard(1, 2), ["load"]),
                      shard.plan(cells, shard.Shard(1, 2, {
                          "debian-6.1/none": 99.0}), ["load"]),
                      shard.plan(cells, shard.Shard(1, 2), ["load"],
                                 ["/other/wrapper"])):
            self.assertNotEqual(other["selection"], a["selection"])

    def test_spec(self):
        self.assertEqual(shard.parse_spec("2/3"), (2, 3))
        for bad in ("0/2", "3/2", "1", "a/b", "1/2/3", "-1/2"):
            with self.assertRaises(BenchError, msg=bad):
                shard.parse_spec(bad)


class DurationsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_dir(self, name, cells):
        d = self.tmp / name
        d.mkdir()
        r = report.RunResult(name, cells=[
            report.CellResult(k, "p", dev, "cells/x", wrapper=w,
                              boot_seconds=s) for k, dev, w, s in cells])
        (d / "results.json").write_text(report.to_json(r))
        return d

    def test_runs_newest_last_wins_and_unbooted_cells_have_none(self):
        a = self.run_dir("1", [("k", "none", "", 2.0),
                               ("k", "bcm43xx", "ndiswrapper", 20.0)])
        b = self.run_dir("2", [("k", "none", "", 3.0),
                               ("k", "e1000", "", None)])
        got = shard.collect([a, b])
        self.assertEqual(got["cells"], {"k/bcm43xx/ndiswrapper": 20.0,
                                        "k/none": 3.0})
        path = self.tmp / "d.json"
        path.write_text(json.dumps(got))
        self.assertEqual(shard.load_durations(str(path))[0], got["cells"])
        self.assertEqual(shard.load_durations(str(b))[0], {"k/none": 3.0})

    def test_none_and_bad_files(self):
        self.assertEqual(shard.load_durations("none"), ({}, "none"))
        bad = self.tmp / "bad.json"
        for text in ("{", '{"cells": {"k/none": "x"}}', "[]",
                     '{"cells": {"k/none": -1}}'):
            bad.write_text(text)
            with self.assertRaises(BenchError, msg=text):
                shard.load_durations(str(bad))
        with self.assertRaises(BenchError):
            shard.load_durations(str(self.tmp / "missing.json"))

    def test_the_checked_in_file_is_the_default_and_reads(self):
        durations, source = shard.load_durations(None)
        self.assertEqual(source, ".ci/durations.json")
        self.assertTrue(durations)
        known = {shard.cell_key(k.name, d.name, d.wrapper)
                 for k in KERNELS.values() for d in devices.TARGETS}
        self.assertLessEqual(set(durations), known)


VERDICTS = {"none": {"load": Verdict(XFAIL, "reproduced")},
            "e1000": {"dhcp": Verdict(PASS, "10.0.2.15"),
                      "tcp": Verdict(FAIL, "short by 3 bytes")}}


def fake_run(matrix, out, prepared):
    """runner.run with the builds and guests replaced; prepared collects
    the kernels it built."""
    def prepare(kernel, *a, **kw):
        prepared.append(kernel.name)
        return cell.plan.Prepared(kernel)

    def run_cell(prep, plan, *a, **kw):
        plan.folder.mkdir(parents=True)
        (plan.folder / "serial.log").write_text(
            f"{prep.kernel.name} {plan.device.label}\n")
        res = report.CellResult(prep.kernel.name, prep.kernel.policy.name,
                                plan.device.name,
                                str(plan.folder.relative_to(plan.run_dir)),
                                wrapper=plan.device.wrapper,
                                boot_seconds=1.0)
        res.verdicts = {c: VERDICTS[plan.device.name][c]
                        for c in plan.checks}
        return res

    with mock.patch.object(runner, "prepare", prepare), \
            mock.patch.object(runner, "fetch_ahead",
                              lambda *a, **kw: None), \
            mock.patch.object(runner, "run_cell", run_cell), \
            mock.patch.object(runner, "host_parts", lambda *a, **kw: None), \
            mock.patch.object(runner, "resolve_accel",
                              lambda *a, **kw: "tcg"), \
            mock.patch.object(runner, "say", lambda *a: None):
        return runner.run(matrix, None, out, 2, 10, "auto")


class ShardRunMergeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.ks = [KERNELS["debian-6.1"], KERNELS["src-6.1"],
                   KERNELS["policy-2.6.25-rc1"]]
        self.devs = devices.select(["none", "e1000"], None)
        self.checks = ["load", "dhcp", "tcp"]

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def matrix(self, spec=None, durations=None):
        sh = None
        if spec:
            sh = shard.Shard(*shard.parse_spec(spec), durations or {})
        return runner.Matrix(self.ks, self.devs, self.checks, EXP,
                             shard=sh)

    def shards(self, count, durations=None, out="shards"):
        built, dirs = [], []
        for i in range(1, count + 1):
            got = []
            res = fake_run(self.matrix(f"{i}/{count}", durations),
                           self.tmp / out / str(i), got)
            built.append(got)
            dirs.append(self.tmp / out / str(i) / res.run_id)
        return built, dirs

    def test_a_shard_builds_only_the_kernels_of_its_cells(self):
        # equal estimates: none 3 s, e1000 10 s per kernel: 13 s each
        built, dirs = self.shards(3)
        self.assertEqual(built, [["debian-6.1"], ["src-6.1"],
                                 ["policy-2.6.25-rc1"]])
        built, _ = self.shards(2, out="two")
        self.assertEqual(sorted(sum(built, [])),
                         sorted(["debian-6.1", "src-6.1", "src-6.1",
                                 "policy-2.6.25-rc1"]))
        self.assertEqual(len(built[0]) + len(built[1]), 4)

    def test_merged_shards_are_the_single_run(self):
        _, dirs = self.shards(2)
        single = fake_run(self.matrix(), self.tmp / "single", [])
        merged_dir, merged = merge.merge(list(reversed(dirs)),
                                         self.tmp / "merged")
        self.assertEqual(compare.changes(single, merged), [])
        self.assertEqual(report.matrix(merged), report.matrix(single))
        self.assertEqual(merged.checks, single.checks)
        self.assertEqual([c.folder for c in merged.cells],
                         [c.folder for c in single.cells])
        again = report.load(merged_dir)
        self.assertEqual(report.matrix(again), report.matrix(single))
        self.assertEqual(again.shard["merged"],
                         [d.name for d in dirs])
        for name in ("summary.md", "junit.xml", "report.html",
                     "matrix.txt"):
            self.assertTrue((merged_dir / name).is_file(), name)
        for c in merged.cells:
            self.assertEqual((merged_dir / c.folder / "serial.log")
                             .read_text(), f"{c.kernel} {c.label}\n")
        junit = (merged_dir / "junit.xml").read_text()
        self.assertIn('tests="9"', junit)
        self.assertIn('failures="3"', junit)
        self.assertIn("Merged from 2 shards", (merged_dir / "summary.md")
                      .read_text())

    def test_an_empty_shard_merges(self):
        self.devs = devices.select(["none"], None)
        self.ks = self.ks[:1]
        _, dirs = self.shards(2)
        self.assertEqual(sorted(len(report.load(d).cells) for d in dirs),
                         [0, 1])
        _, merged = merge.merge(dirs, self.tmp / "m")
        self.assertEqual(len(merged.cells), 1)
        self.assertEqual(merged.accel, "tcg")

    def refused(self, dirs, *words):
        with self.assertRaises(BenchError) as ctx:
            merge.merge(dirs, self.tmp / "refused")
        msg = str(ctx.exception)
        self.assertNotIn("\n", msg)
        for word in words:
            self.assertIn(word, msg)
        self.assertFalse((self.tmp / "refused").exists())
        return msg

    def test_refuses_overlap_gaps_and_other_splits(self):
        _, two = self.shards(2)
        _, three = self.shards(3, out="three")
        _, other = self.shards(2, {"src-6.1/none": 60.0}, out="other")
        self.refused([two[0], two[0]], "both shard 1/2")
        self.refused([two[0]], "shard(s) 2 of 2 missing")
        self.refused([two[0], three[1]], "not one split")
        self.refused([two[0], other[1]], "different selections")
        single = fake_run(self.matrix(), self.tmp / "single", [])
        self.refused([two[0], self.tmp / "single" / single.run_id],
                     "not a shard run")
        merged_dir, _ = merge.merge(two, self.tmp / "m")
        self.refused([merged_dir, two[1]], "already a merged run")

    def tamper(self, run_dir, edit):
        raw = json.loads((run_dir / "results.json").read_text())
        edit(raw)
        (run_dir / "results.json").write_text(json.dumps(raw))

    def test_refuses_shards_whose_cells_are_not_their_split(self):
        _, dirs = self.shards(2)
        first = report.load(dirs[0])
        theirs = report.load(dirs[1]).cells[0]

        def add(raw):
            raw["cells"].append(json.loads(report.to_json(
                report.RunResult("x", cells=[theirs])))["cells"][0])
        self.tamper(dirs[0], add)
        self.refused(dirs, "both hold cell", "overlapping")
        self.tamper(dirs[0], lambda raw: raw["cells"].pop())
        self.tamper(dirs[0], lambda raw: raw["cells"].pop())
        self.refused(dirs, "shard 1 lacks cell")
        # a cell moved from shard 2 to shard 1: no overlap, but not its own
        self.tamper(dirs[1], lambda raw: raw["cells"].pop(0))
        self.tamper(dirs[0], add)
        self.refused(dirs, "is not one of shard 1's cells")
        self.assertTrue(first.cells)

    def test_refuses_other_accelerators_and_escaping_folders(self):
        _, dirs = self.shards(2)
        self.tamper(dirs[1], lambda raw: raw.update(accel="kvm"))
        self.refused(dirs, "different accelerators", "kvm", "tcg")
        self.tamper(dirs[1], lambda raw: raw.update(accel="tcg"))

        def escape(raw):
            raw["cells"][0]["folder"] = "cells/../../etc"
        self.tamper(dirs[1], escape)
        self.refused(dirs, "not under cells/")


if __name__ == "__main__":
    unittest.main()
