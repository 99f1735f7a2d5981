"""The `fuzz` stage of `ndisbench test`: it cannot pass without clang, and
a crashing target fails its smoke run."""
import contextlib
import io
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from helpers import REPO
from ndisbench_lib.build import hostbuild
from ndisbench_lib.commands import selftest

SMOKE = REPO / "tests" / "fuzz" / "smoke.py"


class FuzzStageTest(unittest.TestCase):
    def test_missing_clang_is_one_failure(self):
        out = io.StringIO()
        with mock.patch.object(hostbuild.shutil, "which",
                               return_value=None), \
                mock.patch.object(hostbuild, "run_logged") as run, \
                contextlib.redirect_stdout(out):
            counts = selftest.stage("fuzz", "libFuzzer smoke",
                                    hostbuild.fuzz_tests)
        self.assertEqual(counts, (0, 1))
        self.assertIn("clang not found", out.getvalue())
        run.assert_not_called()

    def test_build_without_the_smoke_tests_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            build = hostbuild.pathlib.Path(tmp)
            (build / "build.ninja").write_text("")
            (build / "meson-info").mkdir()
            (build / "meson-info" / "intro-tests.json").write_text(
                '[{"name": "pe", "suite": ["ndisbench:unit-c"]}]')
            with mock.patch.object(hostbuild, "FUZZ_BUILD", build), \
                    mock.patch.object(hostbuild.shutil, "which",
                                      return_value="/usr/bin/clang"), \
                    mock.patch.object(hostbuild, "run_logged") as run:
                with self.assertRaisesRegex(hostbuild.BenchError,
                                            "without CC=clang"):
                    hostbuild.fuzz_tests()
            run.assert_not_called()


class SmokeScriptTest(unittest.TestCase):
    def smoke(self, code: str) -> int:
        with tempfile.TemporaryDirectory() as tmp:
            fake = hostbuild.pathlib.Path(tmp) / "fake_fuzzer"
            fake.write_text(f"#!{sys.executable}\n{code}\n")
            fake.chmod(0o755)
            return subprocess.run(
                [sys.executable, str(SMOKE), str(fake), "-", "-runs=1"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                timeout=60, check=False).returncode

    def test_crash_fails(self):
        # libFuzzer exits 1 on a crash or a sanitizer report
        self.assertEqual(self.smoke("import sys; sys.exit(1)"), 1)

    def test_clean_run_passes(self):
        self.assertEqual(self.smoke("import sys; sys.exit(0)"), 0)


if __name__ == "__main__":
    unittest.main()
