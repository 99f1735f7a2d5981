"""build/hostbuild.meson_compile names targets in an existing build/: a
target the tree gained since that build folder was configured (a user
who pulls, then runs) must be found, not refused as unknown."""
import pathlib
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib import paths
from ndisbench_lib.build import hostbuild

MESON_ONE = """project('t', 'c')
executable('one', 'one.c')
"""
MESON_TWO = MESON_ONE + "executable('two', 'two.c')\n"


@unittest.skipUnless(shutil.which("meson") and shutil.which("gcc"),
                     "needs meson and a C compiler")
class NewTargetTest(unittest.TestCase):
    def test_a_target_added_after_setup_is_built(self):
        with tempfile.TemporaryDirectory() as tmp:
            src = pathlib.Path(tmp, "src")
            src.mkdir()
            for name in ("one", "two"):
                (src / f"{name}.c").write_text("int main(void) { return 0; }\n")
            (src / "meson.build").write_text(MESON_ONE)
            build = pathlib.Path(tmp, "build")
            subprocess.run(["meson", "setup", str(build), str(src)],
                           check=True, capture_output=True, timeout=120)
            (src / "meson.build").write_text(MESON_TWO)
            with mock.patch.object(paths, "MESON_BUILD", build), \
                    mock.patch.object(paths, "REPO", src):
                # before: "ERROR: Can't invoke target `two:executable`:
                # target not found"
                hostbuild.meson_compile("two:executable")
            self.assertTrue((build / "two").exists())


if __name__ == "__main__":
    unittest.main()
