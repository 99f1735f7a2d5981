"""The Python fuzz targets (tests/fuzz/pytargets.py) and their engine
(tests/fuzz/pyfuzz.py): a short fixed-seed smoke of each target, the
regression inputs of what they found, the engine's findings (crash,
timeout, out of memory) and its libFuzzer-shaped output as commands/
fuzz.py reads it, and the fixes each finding led to."""
import json
import pathlib
import socket
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from unittest import mock

import helpers
from ndisbench_lib import trees
from ndisbench_lib.build import hosttool, usertree
from ndisbench_lib.commands import fuzz
from ndisbench_lib.errors import BenchError
from ndisbench_lib.guest import qmp
from ndisbench_lib.report import kcidb, report
from ndisbench_lib.report.verdict import PASS, Verdict

FUZZ_DIR = helpers.REPO / "tests" / "fuzz"
PYFUZZ = FUZZ_DIR / "pyfuzz.py"
TARGETS = ("py_inf", "py_ktap", "py_qmp", "py_report", "py_tree")
# executions of each smoke: a second or two on the shared machine
SMOKE_RUNS = {"py_inf": 300, "py_ktap": 150, "py_qmp": 300,
              "py_report": 100, "py_tree": 150}


def pyfuzz(*args: str, code: str = "", timeout: float = 120
           ) -> subprocess.CompletedProcess:
    """pyfuzz.py with args; code: Python run first in its process (to add
    a target of the test's own)."""
    if code:
        cmd = [sys.executable, "-c",
               f"import sys; sys.path.insert(0, {str(FUZZ_DIR)!r})\n"
               f"import pyfuzz, pytargets\n{code}\n"
               f"sys.exit(pyfuzz.main({list(args)!r}))"]
    else:
        cmd = [sys.executable, str(PYFUZZ), *args]
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout, check=False)


class SmokeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # py_inf reads through ndisconf: built here, not inside its first
        # input's 5 s, whatever ran before (a fresh clone has no build/)
        hosttool.ndisconf()

    def test_every_target_listed_with_its_corpus(self):
        listed = pyfuzz("--list").stdout.split("\n")
        self.assertEqual([line.split()[0] for line in listed if line],
                         list(TARGETS))
        for line in filter(None, listed):
            name, folder = line.split()
            self.assertTrue(any((FUZZ_DIR / "corpus" / folder).iterdir()),
                            name)

    def test_each_target_a_few_hundred_inputs_seed_7(self):
        for name in TARGETS:
            folder = "inf" if name == "py_inf" else name
            with self.subTest(name), tempfile.TemporaryDirectory() as tmp:
                # the corpus read-only: new inputs go nowhere
                proc = pyfuzz(name, "-seed=7", f"-runs={SMOKE_RUNS[name]}",
                              "-print_final_stats=1", "-timeout=5",
                              "-rss_limit_mb=1024",
                              f"-artifact_prefix={tmp}/",
                              str(pathlib.Path(tmp) / "none"),
                              str(FUZZ_DIR / "corpus" / folder))
                self.assertEqual(proc.returncode, 0, proc.stdout[-2000:])
                st = fuzz.parse_output(proc.stdout)
                self.assertEqual(st.execs, SMOKE_RUNS[name])
                self.assertGreater(st.cov, 0)
                self.assertGreater(st.ft, 0)
                self.assertTrue(st.done)
                self.assertEqual(list(pathlib.Path(tmp).iterdir()), [])

    def test_regression_inputs_run_clean(self):
        for folder in sorted((FUZZ_DIR / "regress").glob("py_*")):
            with self.subTest(folder.name):
                proc = pyfuzz(folder.name, "-runs=0", str(folder))
                self.assertEqual(proc.returncode, 0, proc.stdout[-2000:])
                self.assertIn("INITED", proc.stdout)


class EngineTest(unittest.TestCase):
    def run_boom(self, fn: str, *flags: str) -> tuple:
        with tempfile.TemporaryDirectory() as tmp:
            proc = pyfuzz("boom", "-seed=3", "-runs=50",
                          "-print_final_stats=1", f"-artifact_prefix={tmp}/",
                          *flags,
                          code=f"pytargets.TARGETS['boom'] = "
                               f"pytargets.PyTarget({fn}, [b'x'])")
            kept = sorted(p.name.split("-")[0] for p in
                          pathlib.Path(tmp).iterdir())
        return proc, kept

    def test_an_undocumented_exception_is_a_crash_with_its_input(self):
        proc, kept = self.run_boom("lambda d: str(1 // len(d))")
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(kept, ["crash"])
        self.assertIn("ZeroDivisionError", proc.stdout)
        self.assertIn("ERROR: pyfuzz: uncaught exception in target boom",
                      proc.stdout)

    def test_a_slow_input_is_a_timeout(self):
        proc, kept = self.run_boom("lambda d: __import__('time').sleep(9)",
                                   "-timeout=1")
        self.assertEqual((proc.returncode, kept), (1, ["timeout"]))

    def test_memory_past_the_limit_is_oom(self):
        proc, kept = self.run_boom("lambda d: str(len(bytearray(1 << 30)))",
                                   "-rss_limit_mb=400")
        self.assertEqual((proc.returncode, kept), (1, ["oom"]))

    def test_same_seed_same_inputs(self):
        code = ("seen = []\npytargets.TARGETS['boom'] = pytargets.PyTarget("
                "lambda d: seen.append(d) or 'ok', [b'tok'])\n"
                "import atexit, hashlib\natexit.register(lambda: print("
                "'digest', hashlib.sha1(b''.join(seen)).hexdigest()))")
        runs = [pyfuzz("boom", f"-seed={s}", "-runs=200", code=code).stdout
                for s in (5, 5, 6)]
        digests = [r.split("digest ")[1].strip() for r in runs]
        self.assertEqual(digests[0], digests[1])
        self.assertNotEqual(digests[0], digests[2])


class FuzzCommandTest(unittest.TestCase):
    def test_python_targets_found_with_corpus_and_limits(self):
        targets = {t.name: t for t in fuzz.python_targets()}
        self.assertEqual(sorted(targets), list(TARGETS))
        self.assertEqual(targets["py_inf"].corpus, FUZZ_DIR / "corpus" / "inf")
        self.assertEqual(targets["py_tree"].regress,
                         FUZZ_DIR / "regress" / "py_tree")
        self.assertEqual(targets["py_qmp"].kind, "python")
        self.assertIn("-rss_limit_mb=1024", targets["py_qmp"].flags)
        self.assertIn("-timeout=5", targets["py_qmp"].flags)

    def test_a_python_target_run_and_reported(self):
        target = {t.name: t for t in fuzz.python_targets()}["py_qmp"]
        with tempfile.TemporaryDirectory() as tmp:
            o = fuzz.run_target(target, 2, 11, pathlib.Path(tmp) / "py_qmp")
            self.assertTrue(o.ok, o.problems)
            self.assertGreater(o.stats.execs, 100)
            self.assertGreater(o.stats.exec_per_sec, 0)
            self.assertGreater(o.stats.cov, 5)
            md = fuzz.markdown(11, 1, [o])
        self.assertIn("| `py_qmp` | python |", md)
        self.assertIn("distinct lines of `scripts/ndisbench_lib`", md)


class QmpRepliesTest(unittest.TestCase):
    def reply(self, data: bytes):
        ours, theirs = socket.socketpair()
        theirs.sendall(data)
        theirs.shutdown(socket.SHUT_WR)
        client = qmp.Qmp.__new__(qmp.Qmp)
        client.sock = ours
        try:
            client.start("t")
            return client.execute("query-status")
        finally:
            client.close()
            theirs.close()

    GREETING = b'{"QMP": {}}\n{"return": {}}\n'

    def test_well_formed(self):
        self.assertEqual(self.reply(self.GREETING + b'{"return": 5}\n'), 5)

    def test_not_utf8(self):
        with self.assertRaisesRegex(BenchError, r"^QMP: not UTF-8"):
            self.reply(self.GREETING + b'{"return": "\xe6("}\n')

    def test_not_json_or_not_an_object(self):
        with self.assertRaisesRegex(BenchError, r"^QMP: not a JSON line"):
            self.reply(b"{\n")
        with self.assertRaisesRegex(BenchError, r"^QMP: not a JSON line"):
            self.reply(self.GREETING + b'{"return": NaN}\n')
        with self.assertRaisesRegex(BenchError,
                                    r"^QMP: a list where an object"):
            self.reply(b"[1]\n")

    def test_error_without_desc(self):
        with self.assertRaisesRegex(BenchError,
                                    r"^QMP query-status: \{'error': 3\}$"):
            self.reply(self.GREETING + b'{"error": 3}\n')

    def test_overlong_line(self):
        # a small cap: the socket's buffer holds the whole reply
        with mock.patch.object(qmp, "MAX_LINE", 1000), \
                self.assertRaisesRegex(BenchError, r"longer than 1000"):
            self.reply(b'{"QMP": "' + b"x" * 1010 + b'"}\n')


class RenderersTest(unittest.TestCase):
    def result(self, name: str) -> report.RunResult:
        cell = report.CellResult("k\x0b6.1", "p", "dev\nice", "f",
                                 verdicts={name: Verdict(PASS, "ok")})
        return report.RunResult("run\x1b[31m", cells=[cell],
                                started="2026-12-06T21:00:00")

    def test_junit_with_control_characters_in_names_parses(self):
        suite = ET.fromstring(report.junit(self.result("lo\x01ad")))
        case = suite.find("testcase")
        self.assertEqual(case.get("name"), "lo\\x01ad")
        self.assertEqual(case.get("classname"), "k\\x0b6.1.dev ice")

    def test_kcidb_ids_are_one_line_and_valid(self):
        data = kcidb.export(self.result("load"))
        self.assertEqual(kcidb.validate(json.loads(json.dumps(data))), [])
        self.assertEqual(data["tests"][0]["id"],
                         "ndisbench:run\\x1b[31m:k\\x0b6.1:dev ice:load")

    def test_kcidb_bad_start_time_is_a_bench_error(self):
        result = self.result("load")
        result.started = "yesterday"
        with self.assertRaisesRegex(BenchError, r"started 'yesterday' is "
                                                r"not an ISO 8601 time"):
            kcidb.export(result)


class TreeMetadataTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.addCleanup(__import__("shutil").rmtree, self.tmp)

    def paths(self, order: bytes):
        (self.tmp / "modules.order").write_bytes(order)
        return usertree._module_paths(self.tmp, "t")

    def test_not_utf8(self):
        with self.assertRaisesRegex(BenchError, r"^t: modules.order is not "
                                                r"UTF-8 text \(byte 2\)"):
            self.paths(b"a/\xe6.ko\n")

    def test_nul_and_overlong_entries(self):
        for order in (b"a\0b.ko\n", b"x" * 256 + b".ko\n",
                      b"a/" * 2100 + b"b.ko\n"):
            with self.assertRaisesRegex(BenchError, r"not a module's path"):
                self.paths(order)

    def test_an_entry_twice_is_one(self):
        self.assertEqual(self.paths(b"kernel/a.ko\na.ko\nb.o\n"),
                         ["a.ko", "b.ko"])

    def test_a_path_past_path_max_below_the_tree(self):
        # within PATH_MAX alone (4095), past it below the tree's path
        (self.tmp / "modules.order").write_text("a/" * 2040 + "b.ko\n")
        with self.assertRaisesRegex(BenchError, r"^t: File name too long: "):
            usertree.link_modules(self.tmp, "6.1.0", self.tmp / "dest", "t")

    def test_release_past_uname_limit(self):
        self.assertEqual(trees.release_problem("6" * 64), "")
        self.assertIn("more than 64 characters",
                      trees.release_problem("6" * 65))

    def test_a_link_that_cannot_be_made_is_a_bench_error(self):
        tree = self.tmp / "tree"
        (tree / "a").mkdir(parents=True)
        (tree / "a" / "b.ko").write_bytes(b"")
        # two spellings of one file: the second link exists already
        (tree / "modules.order").write_text("a/b.ko\na/./b.ko\n")
        with self.assertRaisesRegex(BenchError, r"^t: cannot link "
                                                r"kernel/a/./b.ko: File "
                                                r"exists$"):
            usertree.link_modules(tree, "6.1.0", self.tmp / "dest", "t")


if __name__ == "__main__":
    unittest.main()
