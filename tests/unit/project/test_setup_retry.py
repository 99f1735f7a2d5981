"""A flaky mirror never ends setup: apt downloads are retried, a failed
`apt-get update` is tried again and, when apt still has package lists,
a warning; a failed install is tried again after a fresh update."""
import contextlib
import io
import pathlib
import subprocess
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib.commands import setup
from ndisbench_lib.errors import BenchError


class AptRetryTest(unittest.TestCase):
    def setUp(self):
        self.calls = []
        self.codes = []
        self.lists = pathlib.Path(tempfile.mkdtemp())
        self.sleeps = []

    def fake_run(self, argv, **kw):
        self.calls.append(argv)
        return subprocess.CompletedProcess(argv, self.codes.pop(0))

    def run_apt(self, func, *args):
        out = io.StringIO()
        with mock.patch.object(setup.subprocess, "run", self.fake_run), \
                mock.patch.object(setup.time, "sleep", self.sleeps.append), \
                mock.patch.object(setup, "APT_LISTS", self.lists), \
                contextlib.redirect_stdout(out):
            func(*args)
        return out.getvalue()

    def verbs(self):
        return [c[c.index("-q") - 1] if "-q" in c else c for c in
                [[a for a in call if a in ("update", "install", "-q")]
                 for call in self.calls]]

    def test_every_call_retries_its_downloads(self):
        self.codes = [0]
        self.run_apt(setup.apt_update)
        self.assertEqual(self.calls[0][:3],
                         ["apt-get", "-o", "Acquire::Retries=3"])

    def test_update_tried_again_until_it_succeeds(self):
        self.codes = [100, 100, 0]
        self.run_apt(setup.apt_update)
        self.assertEqual(self.verbs(), ["update"] * 3)
        self.assertEqual(self.sleeps, [10, 30])

    def test_update_failing_with_lists_kept_is_a_warning(self):
        (self.lists / "deb.debian.org_debian_dists_bookworm_main_binary-"
                      "amd64_Packages").write_text("Package: x\n")
        self.codes = [100] * setup.APT_ATTEMPTS
        out = self.run_apt(setup.apt_update)
        self.assertIn("[setup] warning: apt-get update failed 3 times "
                      "(exit 100); going on with the package lists apt "
                      "has", out)

    def test_update_failing_without_lists_is_the_error(self):
        self.codes = [100] * setup.APT_ATTEMPTS
        with self.assertRaisesRegex(BenchError, r"^setup: apt-get update "
                                    r"failed 3 times \(exit 100\)$"):
            self.run_apt(setup.apt_update)

    def test_install_tried_again_after_a_fresh_update(self):
        self.codes = [100, 0, 0]
        self.run_apt(setup.apt_install, ["tshark"])
        self.assertEqual(self.verbs(), ["install", "update", "install"])
        self.assertEqual(self.calls[-1][-1], "tshark")

    def test_install_failing_every_time_is_the_error(self):
        self.codes = [100, 0, 100, 0, 100]
        with self.assertRaisesRegex(BenchError, r"^setup: apt-get install "
                                    r"failed 3 times \(exit 100\)$"):
            self.run_apt(setup.apt_install, ["tshark"])


if __name__ == "__main__":
    unittest.main()
