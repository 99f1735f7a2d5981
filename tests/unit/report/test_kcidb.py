"""report --kcidb: a run as KCIDB v5.0 JSON that validates against the
checked-in schema subset (required fields, types, origin:... ids, the
status enum, test paths, links between objects); the validator refuses
each way a report can break the schema."""
import copy
import json
import pathlib
import shutil
import tempfile
import unittest

from helpers import REPO
from ndisbench_lib.errors import BenchError
from ndisbench_lib.report import kcidb, report
from ndisbench_lib.report.verdict import (ERROR, FAIL, NOT_RUN, PASS,
                                          TIMEOUT, XFAIL, Verdict)


def sample_run() -> report.RunResult:
    ok = report.CellResult("src-6.1", "2.6.25-rc4", "bcm43xx",
                           "cells/src-6.1__bcm43xx__ndiswrapper",
                           release="6.1.192", boot_seconds=19.2,
                           wrapper="ndiswrapper", verdicts={
                               "load": Verdict(PASS, "loaded"),
                               "tcp": Verdict(FAIL, "short", ("short",
                                                              "by 3 B")),
                               "roam": Verdict(TIMEOUT, "killed")})
    xfail = report.CellResult("policy-2.6.25-rc1", "2.6.25-rc1", "none",
                              "cells/policy-2.6.25-rc1__none",
                              release="6.1.192", boot_seconds=2.0,
                              verdicts={"load": Verdict(XFAIL, "as 2008"),
                                        "driverloader": Verdict(XFAIL, "r"),
                                        "taint": Verdict(ERROR, "no line")})
    unbuilt = report.CellResult("debian-6.12", "2.6.25-rc4", "e1000",
                                "cells/debian-6.12__e1000", verdicts={
                                    "dhcp": Verdict(ERROR, "kernel "
                                                    "'debian-6.12': build "
                                                    "failed")})
    return report.RunResult("20261204-050000", accel="tcg",
                            checks=["load", "driverloader", "taint", "dhcp",
                                    "tcp", "roam"],
                            cells=[ok, xfail, unbuilt],
                            started="2026-12-04T05:00:00", host="vm")


class ExportTest(unittest.TestCase):
    def setUp(self):
        self.data = kcidb.export(sample_run())

    def test_validates_with_one_checkout_and_build_per_kernel(self):
        self.assertEqual(kcidb.validate(self.data), [])
        self.assertEqual([b["id"] for b in self.data["builds"]],
                         ["ndisbench:20261204-050000:src-6.1",
                          "ndisbench:20261204-050000:policy-2.6.25-rc1",
                          "ndisbench:20261204-050000:debian-6.12"])
        self.assertEqual(len(self.data["checkouts"]), 3)
        self.assertEqual(len(self.data["tests"]), 7)
        self.assertEqual([b["status"] for b in self.data["builds"]],
                         ["PASS", "PASS", "FAIL"])
        self.assertIn("build failed", self.data["builds"][2]["log_excerpt"])

    def test_statuses_paths_and_our_words(self):
        got = {t["path"]: (t["status"], t["misc"]["label"])
               for t in self.data["tests"]}
        self.assertEqual(got, {
            "ndisbench.bcm43xx.ndiswrapper.load": ("PASS", "pass"),
            "ndisbench.bcm43xx.ndiswrapper.tcp": ("FAIL", "FAIL"),
            "ndisbench.bcm43xx.ndiswrapper.roam": ("ERROR", "TIMEOUT"),
            "ndisbench.none.load": ("PASS", "reproduced"),
            "ndisbench.none.driverloader": ("PASS", "refused"),
            "ndisbench.none.taint": ("ERROR", "ERROR"),
            "ndisbench.e1000.dhcp": ("MISS", "ERROR")})
        tcp = next(t for t in self.data["tests"] if t["path"].endswith(
            "tcp"))
        self.assertEqual(tcp["log_excerpt"], "short\nby 3 B")
        self.assertEqual(tcp["duration"], 19.2)
        self.assertRegex(tcp["start_time"], r"^2026-12-04T05:00:00[+-]")

    def test_checks_not_run_for_the_build_are_missing(self):
        """A booted cell whose wrapper did not build: its build test
        FAILs, the checks not run because of it are SKIP, the rest keep
        theirs."""
        cell = report.CellResult(
            "debian-sid", "2.6.25-rc4", "none", "cells/debian-sid__none",
            release="7.2.13+deb14-amd64", boot_seconds=8.0, verdicts={
                "build": Verdict(FAIL, "ndiswrapper.ko: compat.h:71:2: "
                                       "error: #error planted"),
                "load": Verdict(NOT_RUN, "ndiswrapper.ko did not build for "
                                         "this kernel (see build)"),
                "control": Verdict(PASS, "loaded")})
        data = kcidb.export(report.RunResult(
            "20261204-050000", checks=["build", "load", "control"],
            cells=[cell], started="2026-12-04T05:00:00", host="vm"))
        kcidb.validate(data)
        got = {t["path"]: t["status"] for t in data["tests"]}
        self.assertEqual(got, {"ndisbench.none.build": "FAIL",
                               "ndisbench.none.load": "SKIP",
                               "ndisbench.none.control": "PASS"})

    def test_urls_only_with_a_base(self):
        self.assertFalse(any("log_url" in t for t in self.data["tests"]))
        data = kcidb.export(sample_run(), "my_ci",
                            "https://ci.example/runs/1/")
        self.assertEqual(kcidb.validate(data), [])
        t = data["tests"][0]
        self.assertEqual(t["log_url"], "https://ci.example/runs/1/cells/"
                         "src-6.1__bcm43xx__ndiswrapper/serial.log")
        self.assertTrue(t["id"].startswith("my_ci:"))

    def test_write_and_a_bad_origin(self):
        tmp = pathlib.Path(tempfile.mkdtemp())
        try:
            path = kcidb.write(tmp, sample_run())
            self.assertEqual(kcidb.validate(json.loads(path.read_text())),
                             [])
            with self.assertRaises(BenchError) as ctx:
                kcidb.write(tmp, sample_run(), origin="Not Valid")
            self.assertIn("does not validate", str(ctx.exception))
        finally:
            shutil.rmtree(tmp)


class ValidatorTest(unittest.TestCase):
    """Each break of the schema is found (the validator can fail)."""

    def setUp(self):
        self.good = kcidb.export(sample_run())

    def broken(self, edit, *words):
        data = copy.deepcopy(self.good)
        edit(data)
        problems = kcidb.validate(data)
        self.assertTrue(problems, words)
        for word in words:
            self.assertTrue(any(word in p for p in problems),
                            (word, problems))

    def test_refusals(self):
        self.broken(lambda d: d.pop("version"), "version missing")
        self.broken(lambda d: d["version"].update(major=4), "major 4")
        self.broken(lambda d: d["tests"][0].pop("build_id"),
                    "build_id missing")
        self.broken(lambda d: d["tests"][0].update(id="no-colon"),
                    "origin_id")
        self.broken(lambda d: d["builds"][0].update(origin="UPPER"),
                    "does not match origin")
        self.broken(lambda d: d["tests"][0].update(status="OK"),
                    "status 'OK'")
        self.broken(lambda d: d["tests"][0].update(path="a..b"),
                    "test_path")
        self.broken(lambda d: d["tests"][0].update(duration="19"),
                    "not a number")
        self.broken(lambda d: d["tests"][0].update(waived=None), "null")
        self.broken(lambda d: d["tests"][0].update(verdict="pass"),
                    "unknown field verdict")
        self.broken(lambda d: d["tests"][0].update(
            start_time="2026-12-04T05:00:00"), "RFC 3339")
        self.broken(lambda d: d["tests"][0].update(log_excerpt="x" * 16385),
                    "longer than 16384")
        self.broken(lambda d: d["tests"][0].update(log_url="cells/x"),
                    "not a URI")
        self.broken(lambda d: d["tests"][0].update(
            output_files=[{"name": "a/b", "url": "https://x/y"}]),
            "resource_name")
        self.broken(lambda d: d["tests"][0].update(
            number={"unit": "s"}), "value missing")
        self.broken(lambda d: d["builds"][0].update(architecture="x86-64"),
                    "architecture")
        self.broken(lambda d: d["tests"].append(dict(d["tests"][0])),
                    "twice")
        self.broken(lambda d: d["builds"].pop(0), "not in the report")
        self.broken(lambda d: d.update(issues=[{"id": "a:b"}]),
                    "not in the subset")
        self.broken(lambda d: d.update(extra=[]), "unknown field extra")


class SubsetFileTest(unittest.TestCase):
    def test_names_its_source_and_the_schema_facts(self):
        subset = kcidb.load_subset()
        self.assertIn("kernelci/kcidb-io", subset["source"])
        self.assertIn("v05_00.py", subset["source"])
        self.assertEqual(subset["version"], {"major": 5, "minor": 0})
        self.assertEqual(subset["statuses"],
                         ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"])
        for kind, required in (("checkouts", ["id", "origin"]),
                               ("builds", ["checkout_id", "id", "origin"]),
                               ("tests", ["build_id", "id", "origin"])):
            self.assertEqual(subset["objects"][kind]["required"], required)
        self.assertEqual(kcidb.SUBSET,
                         REPO / "tests" / "e2e" / "kcidb-v5.0-subset.json")


if __name__ == "__main__":
    unittest.main()
