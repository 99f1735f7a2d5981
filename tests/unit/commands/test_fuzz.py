"""`ndisbench fuzz` (commands/fuzz.py) without fuzzing anything: libFuzzer's
output read back (cov, ft, executions, exec/s, reports), the targets
found in a meson build's introspection (fuzzers only, each with its smoke
test's corpus and flags), the findings that fail a run, the command
line."""
import contextlib
import io
import json
import pathlib
import shutil
import sys
import tempfile
import unittest

import helpers
from ndisbench_lib.build import qemu_fuzz
from ndisbench_lib.commands import cli, fuzz
from ndisbench_lib.errors import BenchError

OUTPUT = """\
INFO: Running with entropic power schedule (0xFF, 100).
INFO: Seed: 42
INFO: Loaded 1 modules   (711 inline 8-bit counters): 711 [0x1, 0x2),
INFO: Loaded 1 PC tables (711 PCs): 711 [0x3,0x4),
INFO:       11 files found in /tmp/corpus
#12\tINITED cov: 110 ft: 230 corp: 10/144Kb exec/s: 0 rss: 32Mb
#13\tNEW    cov: 112 ft: 232 corp: 11/145Kb lim: 39936 exec/s: 0 rss: 32Mb L: 453/39936 MS: 1 InsertByte-
#262144\tpulse  cov: 240 ft: 570 corp: 190/1350Kb lim: 39936 exec/s: 65536 rss: 400Mb
#752905\tDONE   cov: 248 ft: 586 corp: 198/1409Kb lim: 39936 exec/s: 68445 rss: 498Mb
Done 752905 runs in 11 second(s)
stat::number_of_executed_units: 752905
stat::average_exec_per_sec:     68446
stat::new_units_added:          991
stat::slowest_unit_time_sec:    0
stat::peak_rss_mb:              499
"""

# What a forked QEMU child's crash looks like in the parent's output.
CRASH = """\
#3000\tNEW    cov: 5000 ft: 9000 corp: 40/2Kb lim: 4096 exec/s: 150 rss: 300Mb
=================================================================
==1234==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6
    #0 0x55 in rtl8187_handle_data ../hw/ndisbench/usb-rtl8187.c:700:9
SUMMARY: AddressSanitizer: heap-buffer-overflow ../hw/ndisbench/usb-rtl8187.c:700:9
==1234==ABORTING
MS: 2 ChangeByte-CrossOver-; base unit: 0
artifact_prefix='/out/x/'; Test unit written to /out/x/crash-deadbeef
#4000\tpulse  cov: 5010 ft: 9100 corp: 41/2Kb lim: 4096 exec/s: 140 rss: 310Mb
"""


class ParseTest(unittest.TestCase):
    def test_final_figures(self):
        st = fuzz.parse_output(OUTPUT)
        self.assertEqual((st.cov, st.ft, st.corpus), (248, 586, 198))
        # -print_final_stats=1's lines win over the last status line
        self.assertEqual(st.execs, 752905)
        self.assertEqual(st.exec_per_sec, 68446)
        self.assertEqual(st.new_units, 991)
        self.assertEqual(st.peak_rss_mb, 499)
        self.assertEqual(st.counters, 711)
        self.assertTrue(st.done)
        self.assertEqual(st.reports, [])

    def test_without_final_stats_the_last_status_line(self):
        text = "".join(line + "\n" for line in OUTPUT.splitlines()
                       if not line.startswith(("stat::", "#752905")))
        st = fuzz.parse_output(text)
        self.assertEqual((st.execs, st.exec_per_sec, st.cov, st.ft),
                         (262144, 65536, 240, 570))
        self.assertFalse(st.done)

    def test_reports_of_a_child_that_crashed(self):
        st = fuzz.parse_output(CRASH)
        self.assertEqual(len(st.reports), 2)
        self.assertIn("heap-buffer-overflow", st.reports[0])
        self.assertEqual(st.cov, 5010)

    def test_ubsan_and_libfuzzer_reports(self):
        st = fuzz.parse_output(
            "../hw/x.c:10:5: runtime error: shift exponent 40 is too large\n"
            "==77== ERROR: libFuzzer: deadly signal\n")
        self.assertEqual(len(st.reports), 2)

    def test_model_edges_from_print_coverage(self):
        tree = "/c/trees/k/src/build/../"
        st = fuzz.parse_output(
            f"COVERED_FUNC: hits: 12 edges: 18/115 bcm43xx_mmio_read "
            f"{tree}hw/ndisbench/bcm43xx.c:513\n"
            f"UNCOVERED_FUNC: hits: 0 edges: 0/85 bcm43xx_realize "
            f"{tree}hw/ndisbench/bcm43xx.c:735\n"
            f"COVERED_FUNC: hits: 2 edges: 5/11 pic_update_irq "
            f"{tree}hw/intc/i8259.c:108\n"
            f"COVERED_FUNC: hits: 1 edges: 3/5 wlan_ap_put "
            f"{tree}hw/ndisbench/wlan-ap.c:222\n")
        self.assertEqual(st.models, {"bcm43xx.c": [18, 200],
                                     "wlan-ap.c": [3, 5]})

    def test_empty(self):
        st = fuzz.parse_output("")
        self.assertIsNone(st.execs)
        self.assertIsNone(st.cov)


class FindingsTest(unittest.TestCase):
    def test_kept_input_is_a_finding(self):
        st = fuzz.parse_output(CRASH)
        found = fuzz.problems(0, st, ["crash-deadbeef"], False)
        self.assertEqual(found, ["input crash-deadbeef"])

    def test_report_without_input(self):
        found = fuzz.problems(0, fuzz.parse_output(CRASH), [], False)
        self.assertEqual(len(found), 1)
        self.assertIn("without an input", found[0])

    def test_failed_start_and_overrun(self):
        clean = fuzz.parse_output(OUTPUT)
        self.assertEqual(fuzz.problems(0, clean, [], False), [])
        self.assertEqual(fuzz.problems(1, clean, [], False), ["exited 1"])
        self.assertEqual(len(fuzz.problems(None, clean, [], True)), 1)

    def test_artifacts_are_the_failure_kinds_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = pathlib.Path(tmp)
            for name in ("crash-1", "leak-2", "timeout-3", "oom-4",
                         "slow-unit-5", "fuzz.log"):
                (folder / name).write_text("x")
            self.assertEqual([p.name for p in fuzz.artifacts(folder)],
                             ["crash-1", "leak-2", "oom-4", "timeout-3"])


def meson_info(build: pathlib.Path, repo: pathlib.Path) -> None:
    """A build-fuzz/ as meson leaves it: two fuzzers with smoke tests, a
    new fuzzer without one, and a helper that is no fuzzer."""
    info = build / "meson-info"
    info.mkdir(parents=True)
    flags = ["-fsanitize=fuzzer,address,undefined",
             "-fno-sanitize-recover=all"]

    def exe(name, params):
        return {"name": name, "type": "executable",
                "filename": [str(build / "tests" / "fuzz" / name)],
                "target_sources": [{"language": "c",
                                    "parameters": ["-O2", *params]}]}

    (info / "intro-targets.json").write_text(json.dumps([
        exe("fuzz_pe", flags), exe("fuzz_inf", flags),
        exe("fuzz_wlan_frame", flags), exe("fuzz_mkseeds", []),
        {"name": "ndisbench-agent", "type": "executable",
         "filename": [str(build / "agent")], "target_sources": []}]))
    smoke = str(repo / "tests" / "fuzz" / "smoke.py")
    (info / "intro-tests.json").write_text(json.dumps([
        {"name": "fuzz_inf_smoke", "suite": ["ndisbench:fuzz"],
         "cmd": [smoke, "tests/fuzz/fuzz_inf", str(repo / "corpus" / "inf"),
                 "-runs=20000", "-max_len=1048576", "-rss_limit_mb=512",
                 "-dict=" + str(repo / "inf.dict")]},
        {"name": "fuzz_pe_smoke", "suite": ["ndisbench:fuzz"],
         "cmd": [smoke, "tests/fuzz/fuzz_pe", str(repo / "corpus" / "pe"),
                 "-runs=20000"]},
        {"name": "pe", "suite": ["ndisbench:unit-c"],
         "cmd": [str(build / "tests" / "unit" / "c" / "test_pe")]}]))


class DiscoveryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="test-fuzzcmd-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.build = self.tmp / "build-fuzz"
        self.corpus = self.tmp / "corpus"
        (self.corpus / "wlan_frame").mkdir(parents=True)
        meson_info(self.build, self.tmp)

    def test_fuzzers_with_their_smoke_arguments(self):
        found = {t.name: t for t in fuzz.host_targets(self.build,
                                                       self.corpus)}
        self.assertEqual(sorted(found), ["fuzz_inf", "fuzz_pe",
                                         "fuzz_wlan_frame"])
        inf = found["fuzz_inf"]
        self.assertEqual(inf.corpus, self.tmp / "corpus" / "inf")
        # the target's own flags, not the smoke run's -runs=
        self.assertEqual(inf.flags, ["-max_len=1048576", "-rss_limit_mb=512",
                                     "-dict=" + str(self.tmp / "inf.dict")])
        self.assertEqual(inf.argv, [str(self.build / "tests" / "fuzz" /
                                        "fuzz_inf")])
        self.assertEqual(found["fuzz_pe"].flags, [])
        self.assertEqual(found["fuzz_pe"].kind, "host")

    def test_a_fuzzer_without_smoke_test_finds_its_corpus_by_name(self):
        found = {t.name: t for t in fuzz.host_targets(self.build,
                                                       self.corpus)}
        self.assertEqual(found["fuzz_wlan_frame"].corpus,
                         self.corpus / "wlan_frame")
        (self.corpus / "wlan_frame").rmdir()
        found = {t.name: t for t in fuzz.host_targets(self.build,
                                                       self.corpus)}
        self.assertIsNone(found["fuzz_wlan_frame"].corpus)

    def test_unconfigured_build_is_an_error(self):
        with self.assertRaises(BenchError):
            fuzz.host_targets(self.tmp / "nothing", self.corpus)

    def test_regression_folders_by_target_name(self):
        regress = self.tmp / "regress"
        (regress / "fuzz_pe").mkdir(parents=True)
        (regress / "qemu-rtl8187-xhci").mkdir()
        hosts = {t.name: t for t in fuzz.host_targets(self.build, self.corpus,
                                                      regress)}
        self.assertEqual(hosts["fuzz_pe"].regress, regress / "fuzz_pe")
        self.assertIsNone(hosts["fuzz_inf"].regress)
        qemus = {t.name: t for t in fuzz.qemu_targets(
            pathlib.Path("/q/qemu-fuzz-x86_64"), self.corpus, regress)}
        self.assertEqual(qemus["qemu-rtl8187-xhci"].regress,
                         regress / "qemu-rtl8187-xhci")
        self.assertIsNone(qemus["qemu-bcm43xx"].regress)

    def test_qemu_configs(self):
        targets = fuzz.qemu_targets(pathlib.Path("/q/qemu-fuzz-x86_64"),
                                    self.corpus)
        names = [t.name for t in targets]
        self.assertEqual(names, ["qemu-bcm43xx", "qemu-rtl8187-xhci",
                                 "qemu-rtl8187-ehci", "qemu-rtl8187-uhci"])
        for t in targets:
            self.assertEqual(t.argv, ["/q/qemu-fuzz-x86_64",
                                      "--fuzz-target=generic-fuzz"])
            self.assertIn("-M q35", t.env["QEMU_FUZZ_ARGS"])
            self.assertIn("wlan-air", t.env["QEMU_FUZZ_ARGS"])
            self.assertTrue(t.env["QEMU_FUZZ_OBJECTS"])
            # a UBSan report kills the child, so its input is kept
            self.assertIn("halt_on_error=1", t.env["UBSAN_OPTIONS"])
        self.assertEqual(fuzz.qemu_target_names(), names)

    def test_select(self):
        known = ["fuzz_inf", "fuzz_pe", "qemu-bcm43xx"]
        self.assertEqual(fuzz.select(known, None), known)
        self.assertEqual(fuzz.select(known, ["qemu-bcm43xx", "fuzz_inf"]),
                         ["fuzz_inf", "qemu-bcm43xx"])
        with self.assertRaisesRegex(BenchError, "known: fuzz_inf"):
            fuzz.select(known, ["fuzz_nope"])


class ReportTest(unittest.TestCase):
    def test_shares_and_table(self):
        self.assertEqual(fuzz.shares(600, 7), 85)
        self.assertEqual(fuzz.shares(10, 7), fuzz.MIN_SECS)
        good = fuzz.Outcome("fuzz_pe", "host", 85.0, 0,
                            fuzz.parse_output(OUTPUT), [], "fuzz_pe",
                            ["/b/fuzz_pe"])
        st = fuzz.parse_output(CRASH)
        bad = fuzz.Outcome("qemu-rtl8187-ehci", "qemu", 85.0, 0, st,
                           ["crash-deadbeef"], "qemu-rtl8187-ehci",
                           ["/q/qemu-fuzz-x86_64",
                            "--fuzz-target=generic-fuzz"],
                           fuzz.problems(0, st, ["crash-deadbeef"], False))
        text = fuzz.markdown(42, 10, [good, bad])
        self.assertIn("| `fuzz_pe` | host | 85 | 752 905 | 68 446 | 248 of "
                      "711 | 586 | 198 | 0 |", text)
        self.assertIn("--seed 42", text)
        self.assertIn("/q/qemu-fuzz-x86_64 --fuzz-target=generic-fuzz "
                      "qemu-rtl8187-ehci/crash-deadbeef", text)
        self.assertNotIn("device models' edges", text)
        bad.stats.models = {"usb-rtl8187.c": [40, 400]}
        self.assertIn("| `qemu-rtl8187-ehci` | 40 / 400 (10%) |",
                      fuzz.markdown(42, 10, [good, bad]))
        self.assertTrue(good.ok)
        self.assertFalse(bad.ok)


FAKE = """
import pathlib, sys
args = sys.argv[1:]
prefix = [a for a in args if a.startswith("-artifact_prefix=")][0]
prefix = pathlib.Path(prefix.split("=", 1)[1])
corpus = pathlib.Path(args[-1])
(corpus / "new-unit").write_bytes(b"n")      # libFuzzer adds to it
print("#5\\tDONE   cov: 7 ft: 9 corp: 2/2b exec/s: 5 rss: 1Mb")
print("stat::number_of_executed_units: 5")
"""


class RunTargetTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp(prefix="test-fuzzrun-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.corpus = self.tmp / "corpus"
        self.corpus.mkdir()
        (self.corpus / "seed").write_bytes(b"s")

    def run_fake(self, code: str, regress=None, replay=False
                 ) -> fuzz.Outcome:
        script = self.tmp / "fake.py"
        script.write_text(FAKE + code)
        target = fuzz.Target("fuzz_fake", "host",
                             [sys.executable, str(script)], ["-dict=x"],
                             self.corpus, {"FAKE_ENV": "1"}, regress)
        return fuzz.run_target(target, 5, 42, self.tmp / "out" / "fuzz_fake",
                               replay)

    def test_regression_inputs_join_the_scratch_corpus(self):
        regress = self.tmp / "regress"
        regress.mkdir()
        (regress / "crash-1").write_bytes(b"r")
        o = self.run_fake("names = sorted(p.name for p in corpus.iterdir())\n"
                          "sys.exit(0 if names == ['new-unit', "
                          "'regress-crash-1', 'seed'] else 3)\n", regress)
        self.assertTrue(o.ok, o.problems)
        self.assertEqual(sorted(p.name for p in regress.iterdir()),
                         ["crash-1"])

    def test_replay_runs_each_input_once(self):
        o = self.run_fake("", replay=True)
        self.assertTrue(o.ok, o.problems)
        self.assertIn("-runs=0", o.command)
        self.assertFalse([a for a in o.command
                          if a.startswith("-max_total_time=")])
        # a regression input that still fails is a finding
        o = self.run_fake("print('hcd-xhci.c:1126:32: runtime error: shift "
                          "exponent 112 is too large')\n", replay=True)
        self.assertFalse(o.ok)
        self.assertIn("runtime error", o.problems[0])

    def test_clean_run(self):
        o = self.run_fake("")
        self.assertTrue(o.ok, o.problems)
        self.assertEqual((o.stats.execs, o.stats.cov, o.stats.ft),
                         (5, 7, 9))
        self.assertIn("-seed=42", o.command)
        self.assertIn("-max_total_time=5", o.command)
        self.assertIn("-print_final_stats=1", o.command)
        self.assertIn("-dict=x", o.command)
        # the checked-in corpus is only read: a scratch copy is fuzzed
        self.assertNotIn(str(self.corpus), o.command)
        self.assertEqual([p.name for p in self.corpus.iterdir()], ["seed"])
        self.assertTrue((self.tmp / "out" / "fuzz_fake" / "fuzz.log")
                        .exists())

    def test_crash_input_kept_in_the_target_folder(self):
        o = self.run_fake("(prefix / 'crash-abc').write_bytes(b'x')\n"
                          "sys.exit(1)\n")
        self.assertEqual(o.problems, ["input crash-abc"])
        self.assertEqual(o.artifacts, ["crash-abc"])
        self.assertTrue((self.tmp / "out" / "fuzz_fake" / "crash-abc")
                        .exists())
        self.assertEqual(o.exit_code, 1)

    def test_environment_reaches_the_target(self):
        o = self.run_fake("import os\nsys.exit(0 if os.environ.get("
                          "'FAKE_ENV') == '1' else 3)\n")
        self.assertTrue(o.ok, o.problems)


class QemuSeedsTest(unittest.TestCase):
    """tests/fuzz/corpus/qemu-*/ is what tests/fuzz/mkseeds_qemu.py makes
    from the register headers now, in generic-fuzz's input format."""

    def test_checked_in_seeds_are_current(self):
        sys.path.insert(0, str(helpers.REPO / "tests" / "fuzz"))
        try:
            import mkseeds_qemu
        finally:
            sys.path.pop(0)
        with tempfile.TemporaryDirectory() as tmp, \
                contextlib.redirect_stdout(io.StringIO()):
            mkseeds_qemu.main(["mkseeds_qemu.py", tmp])
            made = {p.relative_to(tmp).as_posix(): p.read_bytes()
                    for p in pathlib.Path(tmp).rglob("*") if p.is_file()}
        kept = {p.relative_to(fuzz.CORPUS).as_posix(): p.read_bytes()
                for d in fuzz.CORPUS.glob("qemu-*")
                for p in d.iterdir()}
        self.assertEqual(sorted(made), sorted(kept))
        for name, data in made.items():
            self.assertEqual(data, kept[name], f"{name}: stale, rerun "
                             f"tests/fuzz/mkseeds_qemu.py")
            for command in data.split(mkseeds_qemu.SEPARATOR):
                op = command[0] % 10
                # a write is its opcode and 16 bytes (struct padding kept)
                if op == mkseeds_qemu.OP_WRITE:
                    self.assertEqual(len(command), 17, name)
                elif op == mkseeds_qemu.OP_OUT:
                    self.assertEqual(len(command), 9, name)


    def test_every_config_has_seeds_within_its_max_len(self):
        # libFuzzer cuts corpus inputs to -max_len: a seed longer than
        # that would enumerate nothing
        for t in fuzz.qemu_targets(pathlib.Path("/q/qemu-fuzz-x86_64")):
            max_len = [int(f.split("=", 1)[1]) for f in t.flags
                       if f.startswith("-max_len=")]
            self.assertEqual(len(max_len), 1, t.name)
            self.assertIsNotNone(t.corpus, f"{t.name}: no seeds")
            sizes = {p.name: p.stat().st_size for p in t.corpus.iterdir()}
            self.assertTrue(sizes, f"{t.name}: no seeds")
            for name, size in sizes.items():
                self.assertLessEqual(size, max_len[0],
                                     f"{t.name}/{name}: {size} bytes")


class CommandLineTest(unittest.TestCase):
    def test_options(self):
        args = cli.parser().parse_args(["fuzz", "--minutes", "1.5",
                                        "--target", "fuzz_pe,qemu-bcm43xx",
                                        "--target", "fuzz_inf",
                                        "--seed", "7"])
        self.assertEqual(args.func, cli.cmd_fuzz)
        self.assertEqual(args.minutes, 1.5)
        self.assertEqual(cli._names(args.target),
                         ["fuzz_pe", "qemu-bcm43xx", "fuzz_inf"])
        self.assertEqual(args.seed, 7)

    def test_replay_option(self):
        self.assertTrue(cli.parser().parse_args(["fuzz", "--replay"]).replay)

    def test_defaults(self):
        args = cli.parser().parse_args(["fuzz"])
        self.assertFalse(args.replay)
        self.assertEqual(args.minutes, fuzz.DEFAULT_MINUTES)
        self.assertIsNone(args.target)
        self.assertIsNone(args.seed)


class FuzzTreeTest(unittest.TestCase):
    def test_a_separate_variant_of_the_bench_tree(self):
        from ndisbench_lib.build import qemu_build
        args = qemu_fuzz.FUZZ_CONFIGURE_ARGS
        self.assertEqual(args[:len(qemu_build.CONFIGURE_ARGS)],
                         qemu_build.CONFIGURE_ARGS)
        for flag in ("--enable-fuzzing", "--enable-sanitizers",
                     "--cc=clang", "--cxx=clang++"):
            self.assertIn(flag, args)
        self.assertEqual(qemu_fuzz.FuzzQemuTree.target, "qemu-fuzz-x86_64")
        self.assertEqual(qemu_fuzz.FuzzQemuTree.cc, "clang")
        self.assertEqual(qemu_build.QemuTree.target, "qemu-system-x86_64")
        self.assertNotEqual(qemu_fuzz.KIND, "qemu")


if __name__ == "__main__":
    unittest.main()
