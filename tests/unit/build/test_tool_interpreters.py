"""The guest image carries what a wrapper tree's tools run on: a classic
ndiswrapper tree's installer is a Perl script, so the image then has the
host's perl and exactly the module files that script loads (from Debian's
perl packages); a script whose module the host lacks, or whose interpreter
the guest cannot have, stops the build with one line naming it."""
import pathlib
import subprocess
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.build import initramfs
from ndisbench_lib.build.cache import Cache
from ndisbench_lib.errors import BenchError

# The `use` lines of the ndiswrapper 1.63 installer (utils/ndiswrapper).
CLASSIC_USES = ("use strict;\nuse Fcntl ':mode';\nuse File::Basename;\n"
                "use File::Copy;\nuse File::Path;\nuse Cwd;\n")


@unittest.skipUnless(initramfs.PERL.exists(), "no host perl (setup)")
class PerlTools(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory(prefix="ndisbench-tools-")
        self.addCleanup(tmp.cleanup)
        self.tmp = pathlib.Path(tmp.name)

    def script(self, name: str, text: str) -> pathlib.Path:
        path = self.tmp / name
        path.write_text(text)
        path.chmod(0o755)
        return path

    def test_classic_installer_gets_perl_and_its_modules(self) -> None:
        tool = self.script("ndiswrapper", "#!/usr/bin/perl\n" + CLASSIC_USES
                           + "print basename(getcwd()), \"\\n\";\n")
        files = initramfs.tool_files([tool])
        self.assertEqual(files["usr/bin/perl"],
                         (initramfs.PERL.read_bytes(), 0o755))
        names = set(files)
        for module in ("strict.pm", "Fcntl.pm", "File/Basename.pm",
                       "File/Copy.pm", "File/Path.pm", "Cwd.pm",
                       # what those load in turn, and die's Carp
                       "Exporter.pm", "File/Spec/Unix.pm", "Carp.pm",
                       # XS parts
                       "auto/Fcntl/Fcntl.so", "auto/Cwd/Cwd.so"):
            self.assertTrue(any(n.endswith("/" + module) for n in names),
                            f"{module} not in the image: {sorted(names)}")
        # perl's own shared libraries, by the paths the loader uses
        self.assertTrue(any(n.endswith("/libc.so.6") for n in names))
        self.assertTrue(any(n.endswith("/libcrypt.so.1") for n in names))
        # a module is the host's file, at the path perl looked it up at
        copy = next(n for n in names if n.endswith("/File/Copy.pm"))
        self.assertEqual(files[copy][0], pathlib.Path("/" + copy)
                         .read_bytes())
        # only what the script loads: not the whole of perl-base
        self.assertFalse(any(n.endswith("/POSIX.pm") for n in names))

    def test_the_archive_holds_them(self) -> None:
        tool = self.script("ndiswrapper", "#!/usr/bin/perl -w\n" +
                           CLASSIC_USES)
        agent = self.script("agent", "not an agent\n")
        cpio = initramfs.build(agent, {}, [], Cache(self.tmp / "cache"),
                               initramfs.tool_files([tool]))
        res = subprocess.run(["cpio", "-it"], input=cpio.read_bytes(),
                             capture_output=True, cwd=self.tmp, timeout=60,
                             check=True)
        listing = res.stdout.decode().split()
        self.assertIn("usr/bin/perl", listing)
        self.assertTrue(any(n.endswith("/File/Path.pm") for n in listing))

    def test_a_module_the_host_lacks_is_a_build_error(self) -> None:
        tool = self.script("ndiswrapper", "#!/usr/bin/perl\nuse strict;\n"
                           "use Ndisbench::NoSuchModule;\n")
        with self.assertRaises(BenchError) as ctx:
            initramfs.tool_files([tool])
        msg = str(ctx.exception)
        self.assertIn(str(tool), msg)
        self.assertIn("Ndisbench::NoSuchModule", msg)
        self.assertNotIn("@INC contains", msg)   # one readable line
        self.assertNotIn("\n", msg)

    def test_runtime_require_is_followed(self) -> None:
        tool = self.script("t", "#!/usr/bin/perl\nsub later {\n"
                           "    require File::Temp;\n}\n")
        names = set(initramfs.tool_files([tool]))
        self.assertTrue(any(n.endswith("/File/Temp.pm") for n in names))

    def test_env_perl_and_shell_scripts(self) -> None:
        env = self.script("a", "#!/usr/bin/env perl\nuse strict;\n")
        self.assertIn("usr/bin/perl", initramfs.tool_files([env]))
        shell = self.script("b", "#!/bin/sh\necho hi\n")
        self.assertEqual(initramfs.tool_files([shell]), {})

    def test_an_interpreter_the_guest_cannot_have(self) -> None:
        tool = self.script("c", "#!/usr/bin/python3\nprint(1)\n")
        with self.assertRaises(BenchError) as ctx:
            initramfs.tool_files([tool])
        self.assertIn("/usr/bin/python3", str(ctx.exception))
        self.assertIn(str(tool), str(ctx.exception))

    def test_compiled_tools_bring_libraries_not_perl(self) -> None:
        # perl itself is a compiled program: its libraries, no perl
        files = initramfs.tool_files([initramfs.PERL])
        self.assertNotIn("usr/bin/perl", files)
        self.assertTrue(any(n.endswith("/libc.so.6") for n in files))


if __name__ == "__main__":
    unittest.main()
