"""A --wrapper-src tree is named exactly: its version string (its
DRIVER_VERSION, else MODULE_VERSION) and, where it is (inside) a git work
tree, its commit and `git describe --tags --always --dirty`; results.json
(with its format version), summary.md, report.html and the KCIDB export
carry it."""
import json
import pathlib
import shutil
import subprocess
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib import subject
from ndisbench_lib.errors import BenchError
from ndisbench_lib.report import html, kcidb, report
from ndisbench_lib.report.verdict import PASS, Verdict

HEADER = '#define DRIVER_VERSION "1.63"\n#define UTILS_VERSION "1.9"\n'


def git(cwd: pathlib.Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t",
         "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True,
        capture_output=True, text=True, timeout=30).stdout.strip()


@unittest.skipIf(shutil.which("git") is None, "no git")
class IdentifyTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.top = pathlib.Path(self.tmp.name)
        self.src = self.top / "ndiswrapper"
        (self.src / "driver").mkdir(parents=True)
        (self.src / "driver" / "ndiswrapper.h").write_text(HEADER)

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_version_without_git(self) -> None:
        got = subject.identify(self.src)
        self.assertEqual((got.version, got.commit, got.describe),
                         ("1.63", "", ""))
        self.assertEqual(got.label, "version 1.63 (not a git work tree)")

    def test_module_version_when_no_driver_version(self) -> None:
        (self.src / "driver" / "ndiswrapper.h").write_text("")
        (self.src / "driver" / "main.c").write_text(
            'MODULE_VERSION("0.2");\n')
        self.assertEqual(subject.identify(self.src).version, "0.2")

    def test_git_work_tree_of_a_parent_folder(self) -> None:
        git(self.top, "init", "-q")
        git(self.top, "add", "-A")
        git(self.top, "commit", "-qm", "one")
        git(self.top, "tag", "v1.61")
        (self.src / "README").write_text("x")
        git(self.top, "add", "-A")
        git(self.top, "commit", "-qm", "two")
        head = git(self.top, "rev-parse", "HEAD")
        got = subject.identify(self.src)
        self.assertEqual(got.commit, head)
        self.assertEqual(got.describe, f"v1.61-1-g{head[:7]}")
        self.assertEqual(got.label, f"version 1.63, git v1.61-1-g"
                                    f"{head[:7]} ({head})")
        (self.src / "README").write_text("changed")
        self.assertEqual(subject.identify(self.src).describe,
                         f"v1.61-1-g{head[:7]}-dirty")

    def test_no_version_is_said(self) -> None:
        (self.src / "driver" / "ndiswrapper.h").write_text("")
        self.assertEqual(subject.identify(self.src).version, "")
        self.assertEqual(subject.identify(self.src).label,
                         "no version string (not a git work tree)")


def run_with_subject() -> report.RunResult:
    c = report.CellResult("debian-6.1", "2.6.25-rc4", "none",
                          "cells/debian-6.1__none", release="6.1.0",
                          boot_seconds=3.0,
                          verdicts={"load": Verdict(PASS, "loaded")})
    return report.RunResult(
        "r", "tcg", ["load"], [c], started="2026-12-06T20:00:00",
        subject={"path": "/s/ndiswrapper", "version": "1.63",
                 "commit": "57d01fe6973c" + "0" * 28,
                 "describe": "v1.61-16-g57d01fe6"})


class CarriedTest(unittest.TestCase):
    def test_results_json_has_a_format_and_the_subject(self) -> None:
        run = run_with_subject()
        again = report.from_json(report.to_json(run))
        self.assertEqual(again.format, report.FORMAT)
        self.assertEqual(again.subject["describe"], "v1.61-16-g57d01fe6")
        # a results.json of before the field: format 1, no subject
        old = json.loads(report.to_json(run))
        del old["format"], old["subject"]
        got = report.from_json(json.dumps(old))
        self.assertEqual((got.format, got.subject), (1, {}))
        text = report.to_json(run).replace(f'"format": {report.FORMAT}',
                                           '"format": 99')
        with self.assertRaises(BenchError):
            report.from_json(text)

    def test_summary_and_page_name_it(self) -> None:
        run = run_with_subject()
        line = ("Wrapper under test: /s/ndiswrapper, version 1.63, git "
                "v1.61-16-g57d01fe6 (57d01fe6973c")
        self.assertIn(line, report.markdown(run))
        self.assertIn(html.esc(line), html.run_page(run))
        self.assertNotIn("Wrapper under test", report.markdown(
            report.RunResult("r")))

    def test_kcidb_carries_it(self) -> None:
        data = kcidb.export(run_with_subject())
        kcidb.validate(data)
        misc = data["checkouts"][0]["misc"]
        self.assertEqual(misc["wrapper"]["describe"], "v1.61-16-g57d01fe6")
        self.assertEqual(data["tests"][0]["misc"]["wrapper_version"],
                         "1.63 v1.61-16-g57d01fe6")


if __name__ == "__main__":
    unittest.main()
