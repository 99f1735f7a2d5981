"""The meson test stages of `ndisbench test` (unit-c, fixtures): they get
the cached fixture build, and a skipped test or TAP subtest fails them."""
import contextlib
import io
import json
import pathlib
import tempfile
import unittest
from unittest import mock

from helpers import REPO  # noqa: F401
from ndisbench_lib.build import hostbuild


def record(name, result, stdout="", returncode=0):
    return {"name": name, "result": result, "stdout": stdout,
            "returncode": returncode}


class CountResultsTest(unittest.TestCase):
    def test_tap_skip_is_a_failure_naming_test_and_subtest(self):
        passed, failed, problems = hostbuild.count_results([
            record("ndisbench:unit-c / tools", "OK",
                   "ok 1 - test_install\n"
                   "ok 6 - test_fixture_install # SKIP no built bcmwl.inf "
                   "+ bcmwl.sys\n1..6\n"),
            record("ndisbench:unit-c / pe", "OK", "ok 1 - test_a\n1..1\n"),
        ])
        self.assertEqual((passed, failed), (1, 1))
        self.assertEqual(len(problems), 1)
        self.assertIn("ndisbench:unit-c / tools", problems[0])
        self.assertIn("test_fixture_install", problems[0])
        self.assertIn("no built bcmwl.inf", problems[0])

    def test_skipped_test_is_a_failure(self):
        passed, failed, problems = hostbuild.count_results([
            record("fixtures / bcmwl-hostsim", "SKIP",
                   "NDISBENCH_FIXTURES is not set\n", 77)])
        self.assertEqual((passed, failed), (0, 1))
        self.assertIn("fixtures / bcmwl-hostsim", problems[0])
        self.assertIn("NDISBENCH_FIXTURES is not set", problems[0])

    def test_failures_and_expected_failures(self):
        passed, failed, problems = hostbuild.count_results([
            record("a", "FAIL", "not ok 1 - x\n1..1\n", 1),
            record("b", "EXPECTEDFAIL"), record("c", "TIMEOUT")])
        self.assertEqual((passed, failed), (1, 2))
        # a plain failure is shown by meson's --print-errorlogs already
        self.assertEqual(problems, [])

    def test_skip_words_in_test_output_are_not_skips(self):
        passed, failed, _ = hostbuild.count_results([
            record("a", "OK", "# SKIP is what we test here\nok 1 - skip "
                              "handling\n1..1\n")])
        self.assertEqual((passed, failed), (1, 0))


class MesonStagesTest(unittest.TestCase):
    def run_stage(self, stage):
        """Run a stage with the builds mocked; (counts, meson test env,
        meson test argv, printed output)."""
        seen = {}

        def fake_run(cmd, **kw):
            seen["cmd"], seen["env"] = cmd, kw.get("env") or {}
            logs = build / "meson-logs"
            logs.mkdir(parents=True, exist_ok=True)
            (logs / "testlog.json").write_text(
                json.dumps(record("x", "OK", "ok 1 - a\n1..1\n")) + "\n" +
                json.dumps(record("y", "OK", "ok 1 - b # SKIP why\n1..1\n"))
                + "\n")
            return mock.Mock(returncode=0)

        with tempfile.TemporaryDirectory() as tmp:
            build = pathlib.Path(tmp)
            out = io.StringIO()
            with mock.patch.object(hostbuild.paths, "MESON_BUILD", build), \
                    mock.patch.object(hostbuild, "meson_compile"), \
                    mock.patch.object(hostbuild, "build_fixtures",
                                      return_value=pathlib.Path("/fx")), \
                    mock.patch.object(hostbuild.subprocess, "run",
                                      side_effect=fake_run), \
                    contextlib.redirect_stdout(out):
                counts = stage()
        return counts, seen["env"], seen["cmd"], out.getvalue()

    def test_unit_c_gets_the_cached_fixtures_and_fails_on_a_skip(self):
        counts, env, cmd, out = self.run_stage(
            lambda: hostbuild.meson_tests("unit-c"))
        self.assertEqual(env.get(hostbuild.FIXTURES_ENV), "/fx")
        self.assertEqual(cmd[-2:], ["--suite", "unit-c"])
        self.assertEqual(counts, (1, 1))
        self.assertIn("y: ok 1 - b # SKIP why", out)

    def test_fixture_tests_are_the_fixtures_suite(self):
        counts, env, cmd, _ = self.run_stage(hostbuild.fixture_tests)
        self.assertEqual(env.get(hostbuild.FIXTURES_ENV), "/fx")
        self.assertEqual(cmd[-2:], ["--suite", "fixtures"])


class MissingResultsTest(unittest.TestCase):
    """meson test can die before every test of the suite ran (an exec
    format error raised inside meson's harness): each test the suite
    defines but testlog.json lacks is a failure, named."""

    def test_a_test_without_a_result_fails_the_stage(self):
        with tempfile.TemporaryDirectory() as tmp:
            build = pathlib.Path(tmp)
            (build / "meson-info").mkdir()
            (build / "meson-info" / "intro-tests.json").write_text(
                json.dumps([{"name": n, "suite": ["ndisbench:unit-c"]}
                            for n in ("pe", "thunks32", "install32")] +
                           [{"name": "other", "suite": ["ndisbench:fx"]}]))

            def fake_run(cmd, **kw):
                (build / "meson-logs").mkdir(exist_ok=True)
                (build / "meson-logs" / "testlog.json").write_text(
                    json.dumps(record("ndisbench:unit-c / pe", "OK",
                                      "ok 1 - a\n1..1\n")) + "\n")
                return mock.Mock(returncode=1)

            out = io.StringIO()
            with mock.patch.object(hostbuild.subprocess, "run",
                                   side_effect=fake_run), \
                    contextlib.redirect_stdout(out):
                counts = hostbuild._meson_results(
                    build, ["--suite", "unit-c"], suite="unit-c")
        self.assertEqual(counts, (1, 2))
        self.assertIn("thunks32: no result (meson test exit 1)",
                      out.getvalue())
        self.assertIn("install32: no result", out.getvalue())
        self.assertNotIn("other", out.getvalue())


class FixtureRecipeTest(unittest.TestCase):
    def test_one_recipe(self):
        # fixtures/Makefile builds the drivers (bench and tests alike);
        # their tests are the main project's `fixtures` suite
        self.assertFalse((REPO / "fixtures" / "meson.build").exists())
        self.assertFalse((REPO / "fixtures" / "mingw-w64-x86_64.ini")
                         .exists())
        tests = (REPO / "tests" / "fixtures" / "meson.build").read_text()
        self.assertIn("suite: 'fixtures'", tests)
        self.assertIn("subdir('tests/fixtures')",
                      (REPO / "meson.build").read_text())


if __name__ == "__main__":
    unittest.main()
