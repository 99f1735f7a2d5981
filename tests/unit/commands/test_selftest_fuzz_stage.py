"""The `fuzz` stage of `ndisbench test`: it cannot pass without clang; its
seed is chosen, printed and passed to every smoke run; a crashing target
fails its smoke run and leaves its input outside the scratch folder; the
checked-in corpus is never written."""
import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List, Optional, Tuple
from unittest import mock

from helpers import REPO
from ndisbench_lib.build import hostbuild
from ndisbench_lib.commands import selftest

SMOKE = REPO / "tests" / "fuzz" / "smoke.py"
SMOKES = [f"{t}_smoke" for t in hostbuild.FUZZ_TARGETS]


class FuzzStageTest(unittest.TestCase):
    def test_missing_clang_is_one_failure(self):
        out = io.StringIO()
        with mock.patch.object(hostbuild.shutil, "which",
                               return_value=None), \
                mock.patch.object(hostbuild, "run_logged") as run, \
                contextlib.redirect_stdout(out):
            counts = selftest.stage("fuzz", "libFuzzer smoke",
                                    hostbuild.fuzz_tests)
        self.assertEqual((counts.passed, counts.failed), (0, 1))
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


    def test_seed_is_chosen_printed_and_passed(self):
        seen: List[Dict[str, str]] = []
        for env_seed in ("", "4242"):
            with tempfile.TemporaryDirectory() as tmp:
                build = pathlib.Path(tmp)
                (build / "build.ninja").write_text("")
                (build / "meson-info").mkdir()
                (build / "meson-logs").mkdir()
                (build / "meson-info" / "intro-tests.json").write_text(
                    json.dumps([{"name": n, "suite": ["ndisbench:fuzz"]}
                                for n in SMOKES]))

                def meson_test(cmd, **kwargs):
                    seen.append(kwargs.get("env") or {})
                    (build / "meson-logs" / "testlog.json").write_text(
                        "".join(json.dumps({"name": n, "result": "OK"}) + "\n"
                                for n in SMOKES))
                    return subprocess.CompletedProcess(cmd, 0)

                out = io.StringIO()
                environ = {k: v for k, v in os.environ.items()
                           if k != "NDISBENCH_FUZZ_SEED"}
                if env_seed:
                    environ["NDISBENCH_FUZZ_SEED"] = env_seed
                with mock.patch.object(hostbuild, "FUZZ_BUILD", build), \
                        mock.patch.dict(os.environ, environ, clear=True), \
                        mock.patch.object(hostbuild.shutil, "which",
                                          return_value="/usr/bin/clang"), \
                        mock.patch.object(hostbuild, "run_logged"), \
                        mock.patch.object(hostbuild.subprocess, "run",
                                          meson_test), \
                        contextlib.redirect_stdout(out):
                    self.assertEqual(hostbuild.fuzz_tests(), (len(SMOKES), 0))
                seed = seen[-1].get("NDISBENCH_FUZZ_SEED", "")
                self.assertTrue(seed.isdigit() and int(seed) > 0, seen)
                if env_seed:
                    self.assertEqual(seed, env_seed)
                self.assertIn(f"-seed={seed}", out.getvalue())
                self.assertIn("out/fuzz-artifacts", out.getvalue())


FAKE = """
import os, pathlib, sys
args = sys.argv[1:]
pathlib.Path(os.environ["FAKE_ARGV"]).write_text("\\n".join(args))
prefix = [a for a in args if a.startswith("-artifact_prefix=")][0]
prefix = prefix[len("-artifact_prefix="):]
corpus = pathlib.Path(args[-1])
"""


class SmokeScriptTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="test-smoke-"))
        self.addCleanup(subprocess.run, ["rm", "-rf", str(self.tmp)],
                        check=False)
        self.artifacts = self.tmp / "artifacts"

    def smoke(self, code: str, corpus: Optional[pathlib.Path] = None,
              env: Optional[Dict[str, str]] = None) -> Tuple[int, str]:
        fake = self.tmp / "fake_fuzzer"
        fake.write_text(f"#!{sys.executable}\n{FAKE}\n{code}\n")
        fake.chmod(0o755)
        environ = {k: v for k, v in os.environ.items()
                   if k != "NDISBENCH_FUZZ_SEED"}
        environ.update(env or {}, FAKE_ARGV=str(self.tmp / "argv"))
        proc = subprocess.run(
            [sys.executable, str(SMOKE), "--artifacts", str(self.artifacts),
             str(fake), str(corpus) if corpus else "-", "-runs=1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=environ, timeout=60, check=False)
        return proc.returncode, proc.stdout

    def argv(self) -> List[str]:
        return (self.tmp / "argv").read_text().split("\n")

    def test_crash_fails(self):
        # libFuzzer exits 1 on a crash or a sanitizer report
        self.assertEqual(self.smoke("sys.exit(1)")[0], 1)

    def test_clean_run_passes_and_keeps_nothing(self):
        rc, out = self.smoke("sys.exit(0)")
        self.assertEqual(rc, 0, out)
        self.assertEqual(list(self.artifacts.glob("*/*")), [])

    def test_seed_is_explicit_and_printed(self):
        rc, out = self.smoke("sys.exit(0)")
        seeds = [a for a in self.argv() if a.startswith("-seed=")]
        self.assertEqual(len(seeds), 1, self.argv())
        self.assertGreater(int(seeds[0][len("-seed="):]), 0)
        self.assertIn(seeds[0], out)

    def test_seed_from_the_environment_replays(self):
        rc, out = self.smoke("sys.exit(0)", env={"NDISBENCH_FUZZ_SEED": "4242"})
        self.assertIn("-seed=4242", self.argv())
        self.assertIn("NDISBENCH_FUZZ_SEED=4242", out)

    def test_crash_input_is_kept_and_named(self):
        rc, out = self.smoke(
            "pathlib.Path(prefix + 'crash-deadbeef').write_bytes(b'MZ')\n"
            "sys.exit(1)")
        self.assertEqual(rc, 1)
        kept = list(self.artifacts.glob("*/crash-deadbeef"))
        self.assertEqual(len(kept), 1, out)
        self.assertEqual(kept[0].read_bytes(), b"MZ")
        self.assertIn(str(kept[0].parent), out)
        self.assertIn("crash-deadbeef", out)

    def test_artifact_fails_even_with_status_0(self):
        rc, out = self.smoke(
            "pathlib.Path(prefix + 'leak-1').write_bytes(b'x')\nsys.exit(0)")
        self.assertEqual(rc, 1, out)

    def test_checked_in_corpus_is_only_read(self):
        corpus = self.tmp / "corpus"
        corpus.mkdir()
        (corpus / "seed-a").write_bytes(b"a")
        # libFuzzer adds new inputs to its first corpus folder
        rc, out = self.smoke(
            "ok = (corpus / 'seed-a').read_bytes() == b'a'\n"
            "(corpus / 'new-input').write_bytes(b'n')\n"
            "sys.exit(0 if ok else 3)", corpus=corpus)
        self.assertEqual(rc, 0, out)
        self.assertNotIn(str(corpus), self.argv())
        self.assertEqual(sorted(p.name for p in corpus.iterdir()), ["seed-a"])

    def test_a_changed_checked_in_corpus_fails(self):
        corpus = self.tmp / "corpus"
        corpus.mkdir()
        (corpus / "seed-a").write_bytes(b"a")
        rc, out = self.smoke(
            f"pathlib.Path({str(corpus / 'seed-a')!r}).write_bytes(b'b')\n"
            "sys.exit(0)", corpus=corpus)
        self.assertEqual(rc, 1, out)
        self.assertIn("checked-in corpus", out)


if __name__ == "__main__":
    unittest.main()
