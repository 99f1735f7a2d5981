"""A failed build step names its cause: the log lines that say why
(compiler, meson, missing program, ld, modpost, make), then the log."""
import contextlib
import io
import pathlib
import re
import sys
import tempfile
import textwrap
import unittest

from helpers import REPO  # noqa: F401
from ndisbench_lib import buildlog, proc
from ndisbench_lib.commands import selftest
from ndisbench_lib.errors import BenchError, BuildError

MESON_DEP = textwrap.dedent("""\
    The Meson build system
    Version: 1.0.1
    Source dir: /root/.cache/ndisbench/trees/abc/src
    Build dir: /root/.cache/ndisbench/trees/abc/src/build
    Build type: native build
    Project name: qemu
    C compiler for the host machine: cc (gcc 12.2.0 "cc (Debian 12.2.0-14) 12.2.0")
    Host machine cpu family: x86_64
    Found pkg-config: /usr/bin/pkg-config (1.8.1)
    Run-time dependency fdt found: NO (tried pkgconfig)

    ../meson.build:2613:4: ERROR: Dependency "fdt" not found, tried pkgconfig

    A full log can be found at /root/.cache/ndisbench/trees/abc/src/build/meson-logs/meson-log.txt
    """)

PROC_ERROR = ("/root/.cache/ndisbench/trees/def/src/driver/proc.c:365:37: "
              "error: passing argument 2 of 'list_is_head' from incompatible "
              "pointer type [-Werror=incompatible-pointer-types]")
KBUILD_GCC = textwrap.dedent(f"""\
    make: Entering directory '/root/.cache/ndisbench/kernels/k1/build'
      CC [M]  /root/.cache/ndisbench/trees/def/src/driver/loader.o
      CC [M]  /root/.cache/ndisbench/trees/def/src/driver/proc.o
    In file included from ./include/linux/module.h:12,
                     from /root/.cache/ndisbench/trees/def/src/driver/proc.c:16:
    /root/.cache/ndisbench/trees/def/src/driver/proc.c: In function 'wrap_procfs_remove':
    {PROC_ERROR}
      365 |         list_for_each_entry(wnd, &wrap_procfs_head, list)
          |                                     ^~~~~~~~~~~~~~~~~
    ./include/linux/list.h:283:63: note: expected 'const struct list_head *' but argument is of type 'struct nd *'
    /root/.cache/ndisbench/trees/def/src/driver/proc.c:370:5: error: second error
    cc1: some warnings being treated as errors
    make[2]: *** [scripts/Makefile.build:250: /root/.cache/ndisbench/trees/def/src/driver/proc.o] Error 1
    make[1]: *** [Makefile:2012: /root/.cache/ndisbench/trees/def/src/driver] Error 2
    make: *** [Makefile:234: __sub-make] Error 2
    make: Leaving directory '/root/.cache/ndisbench/kernels/k1/build'
    """)

# What gcc 12 really prints for ndiswrapper 1.63's driver/proc.c on 6.12's
# headers: the first error is placed inside the header's macro, the notes
# lead to the source line; the next error is the source's own.
HEADERS = "/root/.cache/ndisbench/kernels/k2/headers/include"
MACRO_IN_HEADER = textwrap.dedent(f"""\
    /root/.cache/ndisbench/trees/t/src/driver/proc.c: In function 'proc_settings_read':
    {HEADERS}/linux/list.h:776:22: error: passing argument 1 of 'list_is_head' from incompatible pointer type [-Werror=incompatible-pointer-types]
      776 |         list_is_head(&pos->member, (head))
    {HEADERS}/linux/list.h:786:15: note: in expansion of macro 'list_entry_is_head'
    /root/.cache/ndisbench/trees/t/src/driver/proc.c:365:9: note: in expansion of macro 'list_for_each_entry'
    {HEADERS}/linux/list.h:369:56: note: expected 'const struct list_head *' but argument is of type 'struct nt_list *'
    /root/.cache/ndisbench/trees/t/src/driver/proc.c:365:38: error: passing argument 2 of 'list_is_head' from incompatible pointer type [-Werror=incompatible-pointer-types]
    {HEADERS}/linux/list.h:776:37: note: in definition of macro 'list_entry_is_head'
    cc1: some warnings being treated as errors
    make[3]: *** [Makefile.build:234: proc.o] Error 1
    """)
HEADER_ERROR = textwrap.dedent(f"""\
    In file included from a.c:1:
    {HEADERS}/linux/b.h:3:1: error: unknown type name 'u77'
    a.c:5:2: error: 'x' undeclared
    """)

PAHOLE_SH = textwrap.dedent("""\
      LD      .tmp_vmlinux.btf
      BTF     .btf.vmlinux.bin.o
    /bin/sh: 1: pahole: not found
      LD      .tmp_vmlinux.kallsyms1
    make[1]: *** [scripts/Makefile.vmlinux:35: vmlinux] Error 1
    make: *** [Makefile:250: __sub-make] Error 2
    make: Leaving directory '/usr/src/linux-source-6.1'
    """)

PAHOLE_MAKE = textwrap.dedent("""\
    pahole --version
    make: pahole: No such file or directory
    make: *** [Makefile:2: all] Error 127
    """)

LD_UNDEFINED = textwrap.dedent("""\
    cc -o loadndisdriver loadndisdriver.o msg.o
    /usr/bin/ld: loadndisdriver.o: in function `main':
    loadndisdriver.c:(.text+0x5): undefined reference to `ndis_msg_pack'
    collect2: error: ld returned 1 exit status
    make: *** [Makefile:12: loadndisdriver] Error 1
    make: Leaving directory '/tmp/wrapper/utils'
    """)

MODPOST = textwrap.dedent("""\
      MODPOST /root/.cache/ndisbench/trees/def/src/driver/Module.symvers
    ERROR: modpost: "wrap_kmalloc" [/root/.cache/ndisbench/trees/def/src/driver/ndiswrapper.ko] undefined!
    make[2]: *** [scripts/Makefile.modpost:126: /root/.cache/ndisbench/trees/def/src/driver/Module.symvers] Error 1
    make[1]: *** [Makefile:1986: modpost] Error 2
    make: Leaving directory '/root/.cache/ndisbench/kernels/k1/build'
    """)


class CauseLinesTest(unittest.TestCase):
    def test_meson_dependency(self):
        causes = buildlog.cause_lines(MESON_DEP)
        self.assertEqual(causes[0], '../meson.build:2613:4: ERROR: '
                                    'Dependency "fdt" not found, tried '
                                    'pkgconfig')

    def test_kbuild_gcc_error_first_compiler_error_then_make(self):
        causes = buildlog.cause_lines(KBUILD_GCC)
        self.assertEqual(causes[0], PROC_ERROR)
        self.assertNotIn("second error", " ".join(causes))
        self.assertIn("make[2]: *** [scripts/Makefile.build:250: "
                      "/root/.cache/ndisbench/trees/def/src/driver/proc.o] "
                      "Error 1", causes)
        self.assertFalse(any("Leaving directory" in c for c in causes))
        self.assertFalse(any(c.startswith("cc1:") for c in causes))

    def test_an_error_inside_a_header_macro_gives_the_sources_line(self):
        """The line shown names the source that used the macro (the
        wrapper's proc.c:365), not the kernel header the macro lives in;
        the header's line comes after it."""
        causes = buildlog.cause_lines(MACRO_IN_HEADER)
        self.assertEqual(causes[0], "/root/.cache/ndisbench/trees/t/src/"
                         "driver/proc.c:365:38: error: passing argument 2 of "
                         "'list_is_head' from incompatible pointer type "
                         "[-Werror=incompatible-pointer-types]")
        self.assertTrue(causes[1].startswith(f"{HEADERS}/linux/list.h:776:22"
                                             f": error: "), causes)

    def test_a_header_error_of_its_own_stays_first(self):
        # no macro expansion behind it: the header itself is broken
        self.assertEqual(buildlog.cause_lines(HEADER_ERROR)[0],
                         f"{HEADERS}/linux/b.h:3:1: error: unknown type name "
                         f"'u77'")

    def test_ansi_colours_are_stripped(self):
        coloured = ("\x1b[01m\x1b[Ke.c:1:22:\x1b[m\x1b[K \x1b[01;31m\x1b[K"
                    "error: \x1b[m\x1b[K\u2018\x1b[01m\x1b[Kx\x1b[m\x1b[K"
                    "\u2019 undeclared (first use in this function)\n"
                    "make: *** [Makefile:2: e.o] Error 1\n")
        self.assertEqual(buildlog.cause_lines(coloured)[0],
                         "e.c:1:22: error: \u2018x\u2019 undeclared (first "
                         "use in this function)")

    def test_missing_program_from_the_shell(self):
        causes = buildlog.cause_lines(PAHOLE_SH)
        self.assertEqual(causes[0], "/bin/sh: 1: pahole: not found")
        self.assertIn("make[1]: *** [scripts/Makefile.vmlinux:35: vmlinux] "
                      "Error 1", causes)

    def test_missing_program_from_make(self):
        self.assertEqual(buildlog.cause_lines(PAHOLE_MAKE)[0],
                         "make: pahole: No such file or directory")

    def test_ld_undefined_reference(self):
        causes = buildlog.cause_lines(LD_UNDEFINED)
        self.assertEqual(causes[0], "loadndisdriver.c:(.text+0x5): "
                                    "undefined reference to "
                                    "`ndis_msg_pack'")
        # collect2's line is ld's summary, not a compiler error
        self.assertIn("collect2: error: ld returned 1 exit status", causes)
        self.assertLess(causes.index("collect2: error: ld returned 1 exit "
                                     "status"), causes.index(
            "make: *** [Makefile:12: loadndisdriver] Error 1"))

    def test_modpost(self):
        causes = buildlog.cause_lines(MODPOST)
        self.assertTrue(causes[0].startswith('ERROR: modpost: '
                                             '"wrap_kmalloc"'), causes)

    def test_make_only(self):
        log = ("make: Entering directory '/usr/src/linux'\n"
               "make[1]: *** Waiting for unfinished jobs....\n"
               "make: *** No rule to make target 'bzImagex'.  Stop.\n"
               "make: Leaving directory '/usr/src/linux'\n")
        self.assertEqual(buildlog.cause_lines(log),
                         ["make: *** No rule to make target 'bzImagex'.  "
                          "Stop."])

    def test_compiler_error_wins_wherever_it_is(self):
        log = ("make: *** [Makefile:1: a] Error 1\n"
               "gcc: error: unrecognized command-line option '-mfoo'\n")
        self.assertEqual(buildlog.cause_lines(log)[0],
                         "gcc: error: unrecognized command-line option "
                         "'-mfoo'")

    def test_nothing_known(self):
        log = "Traceback (most recent call last):\nValueError: bad\n"
        self.assertEqual(buildlog.cause_lines(log), [])
        self.assertEqual(buildlog.last_line(log + "ninja: build stopped: "
                                            "subcommand failed.\n"),
                         "ValueError: bad")


class BuildErrorTest(unittest.TestCase):
    def test_one_line_with_step_cause_and_log(self):
        err = BuildError("kernel 'src-6.1': build ndiswrapper.ko",
                         pathlib.Path("/c/logs/m.log"), 2,
                         buildlog.cause_lines(KBUILD_GCC))
        self.assertIsInstance(err, BenchError)
        self.assertEqual(str(err), f"kernel 'src-6.1': build ndiswrapper.ko: "
                                   f"failed (exit 2): {PROC_ERROR} "
                                   f"(log: /c/logs/m.log)")
        self.assertEqual(err.exit_code, 2)
        self.assertEqual(err.step, "kernel 'src-6.1': build ndiswrapper.ko")

    def test_stage_line_names_the_cause(self):
        def failing():
            raise BuildError("meson setup", pathlib.Path("/b/build.log"), 1,
                             buildlog.cause_lines(MESON_DEP))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            counts = selftest.stage("unit-c", "C", failing)
        self.assertEqual((counts.passed, counts.failed), (0, 1))
        self.assertIn('unit-c: ERROR: meson setup: failed (exit 1): '
                      '../meson.build:2613:4: ERROR: Dependency "fdt" not '
                      'found, tried pkgconfig (log: /b/build.log)',
                      out.getvalue())


class RunLoggedTest(unittest.TestCase):
    """run_logged on real failing tools."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)
        self.log = self.dir / "logs" / "step.log"

    def tearDown(self):
        self.tmp.cleanup()

    def run_step(self, cmd, what, **kw):
        with self.assertRaises(BuildError) as caught:
            with contextlib.redirect_stdout(io.StringIO()):
                proc.run_logged(cmd, self.log, what, timeout=120, **kw)
        text = str(caught.exception)
        self.assertNotIn("\n", text)
        self.assertTrue(text.startswith(f"{what}: failed (exit "), text)
        self.assertTrue(text.endswith(f"(log: {self.log})"), text)
        return caught.exception

    def test_failing_meson_configure(self):
        src = self.dir / "proj"
        src.mkdir()
        (src / "meson.build").write_text(
            "project('p', 'c')\n"
            "dependency('ndisbench-no-such-lib', method: 'pkg-config')\n")
        err = self.run_step(["meson", "setup", str(self.dir / "b"),
                             str(src)], "meson setup p")
        self.assertIn('meson.build:2:0: ERROR: Dependency '
                      '"ndisbench-no-such-lib" not found', str(err))

    def test_failing_compile_through_make(self):
        (self.dir / "e.c").write_text("int f(void)\n{\n\treturn x;\n}\n")
        (self.dir / "Makefile").write_text("e.o: e.c\n\tgcc -c e.c -o e.o\n")
        # an earlier run's error in the same log is not this run's cause
        self.log.parent.mkdir(parents=True)
        self.log.write_text("old.c:1:1: error: from the previous run\n")
        err = self.run_step(["make", "-C", str(self.dir)], "make e.o",
                            env={"LC_ALL": "C"})
        self.assertRegex(str(err), r"e\.c:3:\d+: error: 'x' undeclared")
        self.assertNotIn("old.c", " ".join(err.causes))
        self.assertIn("make: *** [Makefile:2: e.o] Error 1", err.causes)
        self.assertEqual(err.exit_code, 2)

    def test_missing_program(self):
        with self.assertRaises(BuildError) as caught:
            proc.run_logged(["ndisbench-no-such-tool", "--version"],
                            self.log, "tool step", timeout=30)
        text = str(caught.exception)
        self.assertIn("ndisbench-no-such-tool: No such file or directory",
                      text)
        self.assertTrue(text.endswith(f"(log: {self.log})"), text)

    def test_builds_run_niced(self):
        """Guests keep the CPU they need while later kernels build: a
        build step and what it forks run at nice >= BUILD_NICE."""
        script = ("import os, subprocess, time\n"
                  "time.sleep(0.3)\n"
                  "print('parent', os.nice(0))\n"
                  "subprocess.run(['sh', '-c', 'echo child $(nice)'])\n")
        with contextlib.redirect_stdout(io.StringIO()):
            proc.run_logged([sys.executable, "-c", script], self.log,
                            "nice step", timeout=60)
        text = self.log.read_text()
        for who in ("parent", "child"):
            found = re.search(rf"^{who} (\d+)$", text, re.M)
            self.assertIsNotNone(found, text)
            self.assertGreaterEqual(int(found.group(1)), proc.BUILD_NICE)


if __name__ == "__main__":
    unittest.main()
