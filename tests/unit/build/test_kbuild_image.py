"""A built kernel's boot image: the bzImage (an XZ compression of the
whole kernel, seconds per policy row) is made only where a guest boots it:
a vmlinux without a PVH note (i386's ELF32), or a KASAN kernel."""
import pathlib
import tempfile
import unittest
from unittest import mock

from helpers import REPO  # noqa: F401
from ndisbench_lib.build import kbuild
from build.test_artifacts import elf_with_note

PVH_ELF = elf_with_note(b"Xen", kbuild.XEN_ELFNOTE_PHYS32_ENTRY)
NO_PVH_ELF = elf_with_note(b"GNU", 3)


class BuildIntoTest(unittest.TestCase):
    def build(self, vmlinux: bytes, config: str):
        """build_into on a fake tree: make writes what kbuild would; the
        make targets asked for and the files copied out."""
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            src, out = root / "src", root / "out"
            out.mkdir()
            (src / "arch/x86/boot").mkdir(parents=True)
            targets = []

            def fake_make(cmd, log, what, timeout):
                goals = [a for a in cmd if not a.startswith("-")
                         and a not in ("make", str(src))]
                targets.append(goals)
                if "vmlinux" in goals or "bzImage" in goals:
                    (src / "vmlinux").write_bytes(vmlinux)
                    (src / ".config").write_text(config)
                    (src / "Module.symvers").write_text("")
                if "bzImage" in goals:
                    (src / "arch/x86/boot/bzImage").write_bytes(b"bz")

            tree = kbuild.SourceTree.__new__(kbuild.SourceTree)
            tree.who, tree.src, tree.arch_args = "kernel 'k'", src, []
            tree.log = root / "build.log"
            with mock.patch.object(kbuild, "run_logged", fake_make), \
                    mock.patch.object(kbuild, "capture",
                                      return_value="6.1.1\n"):
                tree.build_into(None, out)
            return targets, sorted(p.name for p in out.iterdir())

    def test_a_pvh_kernel_is_not_compressed(self):
        targets, files = self.build(PVH_ELF, "CONFIG_PVH=y\n")
        self.assertIn(["vmlinux", "modules"], [t[-2:] for t in targets])
        self.assertFalse(any("bzImage" in t for t in targets))
        self.assertNotIn("bzImage", files)
        self.assertIn("vmlinux", files)

    def test_kasan_gets_its_bzimage(self):
        targets, files = self.build(PVH_ELF, "CONFIG_KASAN=y\n")
        self.assertIn(["bzImage"], [t[-1:] for t in targets])
        self.assertIn("bzImage", files)

    def test_no_pvh_note_gets_a_bzimage_and_no_vmlinux(self):
        targets, files = self.build(NO_PVH_ELF, "CONFIG_PVH=y\n")
        self.assertIn(["bzImage"], [t[-1:] for t in targets])
        self.assertIn("bzImage", files)
        self.assertNotIn("vmlinux", files)


if __name__ == "__main__":
    unittest.main()
