"""A kernel of the user's own build folder (source = "tree", run
--kernel-tree): each missing piece is one clear error line, the policy is
inferred from the version, the modules are linked, not copied."""
import pathlib
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib import kernels, trees
from ndisbench_lib.build import usertree
from ndisbench_lib.errors import BenchError

CONFIG = """CONFIG_64BIT=y
CONFIG_X86_64=y
CONFIG_MODULES=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_SERIAL_8250_CONSOLE=y
"""


def make_tree(root: pathlib.Path, release: str = "6.1.192",
              config: str = CONFIG) -> pathlib.Path:
    """The files a finished `make bzImage modules` leaves, in miniature."""
    tree = root / "linux"
    (tree / "arch/x86/boot").mkdir(parents=True)
    image = bytearray(0x400)
    image[0x202:0x206] = b"HdrS"
    (tree / trees.BZIMAGE).write_bytes(bytes(image))
    (tree / ".config").write_text(config)
    (tree / "Module.symvers").write_text(
        "0x00000000\tusb_submit_urb\tvmlinux\tEXPORT_SYMBOL_GPL\t\n")
    (tree / "include/config").mkdir(parents=True)
    (tree / "include/config/kernel.release").write_text(release + "\n")
    ko = tree / "drivers/net/wireless/rtl8187.ko"
    ko.parent.mkdir(parents=True)
    ko.write_bytes(b"\x7fELF fake")
    (tree / "modules.order").write_text("drivers/net/wireless/rtl8187.ko\n")
    (tree / "modules.builtin").write_text("kernel/drivers/usb/core/usbcore.ko"
                                          "\n")
    return tree


class ReleaseTest(unittest.TestCase):
    def test_release_with_a_path_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            for release in ("6.1.0/../../../etc", "6.1.0 x", "6.1.0\x1b[2J"):
                tree = make_tree(pathlib.Path(tmp) / str(len(release)),
                                 release=release)
                with self.assertRaisesRegex(
                        BenchError, "include/config/kernel.release: "
                        ".* is not a kernel release \\(letters, digits and "
                        "\\._\\+~- only\\)"):
                    trees.check_tree(tree, "--kernel-tree")

    def test_plain_releases_accepted(self):
        with tempfile.TemporaryDirectory() as tmp:
            for release in ("6.1.0-57-amd64", "6.1.192+debug~1", "5.10.262"):
                tree = make_tree(pathlib.Path(tmp) / release, release=release)
                self.assertEqual(trees.check_tree(tree).release, release)


class CheckTreeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.tree = make_tree(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def error(self, path=None):
        with self.assertRaises(BenchError) as ctx:
            trees.check_tree(path or self.tree, "--kernel-tree")
        msg = str(ctx.exception)
        self.assertNotIn("\n", msg)
        self.assertIn(f"--kernel-tree {path or self.tree}: ", msg)
        return msg

    def test_good_tree(self):
        info = trees.check_tree(self.tree)
        self.assertEqual(info.release, "6.1.192")
        self.assertEqual(info.version, (6, 1, 192))

    def test_not_a_folder(self):
        self.assertIn("not a folder", self.error(self.root / "nope"))

    def test_no_bzimage(self):
        (self.tree / trees.BZIMAGE).unlink()
        self.assertIn("no arch/x86/boot/bzImage", self.error())

    def test_not_an_x86_bzimage(self):
        (self.tree / trees.BZIMAGE).write_bytes(b"\0" * 0x400)
        self.assertIn("not an x86 bzImage", self.error())

    def test_no_config(self):
        (self.tree / ".config").unlink()
        self.assertIn("no .config", self.error())

    def test_no_module_symvers(self):
        (self.tree / "Module.symvers").unlink()
        self.assertIn("no Module.symvers", self.error())

    def test_wrong_arch(self):
        (self.tree / ".config").write_text("CONFIG_ARM64=y\nCONFIG_MODULES=y"
                                           "\n")
        msg = self.error()
        self.assertIn("wrong architecture", msg)
        self.assertIn("ARM64", msg)
        (self.tree / ".config").write_text("CONFIG_X86_32=y\n")
        self.assertIn("X86_32", self.error())

    def test_guest_needs(self):
        (self.tree / ".config").write_text(
            CONFIG.replace("CONFIG_MODULES=y\n", ""))
        self.assertIn("lacks CONFIG_MODULES (loadable modules)",
                      self.error())

    def test_no_release(self):
        (self.tree / "include/config/kernel.release").unlink()
        self.assertIn("no kernel release", self.error())

    def test_policy_inferred_from_version(self):
        info = trees.check_tree(self.tree)
        self.assertEqual(trees.infer_policy(info, "x"), "2.6.25-rc4")
        for release in ("2.6.25", "5.10.262", "6.12.118+deb13-amd64"):
            self.assertEqual(trees.infer_policy(
                trees.TreeInfo(self.tree, release,
                                  trees.version_of(release), {}), "x"),
                "2.6.25-rc4")
        old = trees.TreeInfo(self.tree, "2.6.24", (2, 6, 24), {})
        with self.assertRaises(BenchError) as ctx:
            trees.infer_policy(old, "x")
        self.assertIn("set policy", str(ctx.exception))

    def test_version_of(self):
        self.assertEqual(trees.version_of("6.1.0-57-amd64"), (6, 1, 0))
        self.assertEqual(trees.version_of("7.2"), (7, 2, 0))
        self.assertIsNone(trees.version_of("linux"))


class TreeKernelTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.tree = make_tree(self.root, release="5.10.262")
        self.exp = kernels.load_expectations()

    def tearDown(self):
        self.tmp.cleanup()

    def test_kernel_tree_option_adds_a_kernel(self):
        matrix = kernels.load_kernels(exp=self.exp)
        picked = kernels.select(matrix, ["src-6.1"])
        out = kernels.add_trees(picked, matrix, [self.tree, self.tree],
                                self.exp)
        self.assertEqual([k.name for k in out],
                         ["src-6.1", "tree-5.10.262", "tree-5.10.262-2"])
        self.assertEqual(out[1].policy.name, "2.6.25-rc4")
        forced = kernels.add_trees([], matrix, [self.tree], self.exp,
                                   "2.6.19-rc2")
        self.assertEqual(forced[0].policy.name, "2.6.19-rc2")
        with self.assertRaises(BenchError) as ctx:
            kernels.add_trees([], matrix, [self.tree], self.exp, "nope")
        self.assertIn("unknown policy 'nope'", str(ctx.exception))

    def test_modules_are_linked_not_copied(self):
        dest = self.root / "entry" / "modules"
        with mock.patch.object(usertree, "capture") as depmod:
            count = usertree.link_modules(self.tree, "5.10.262", dest, "w")
        self.assertEqual(count, 1)
        moddir = dest / "lib/modules/5.10.262"
        link = moddir / "kernel/drivers/net/wireless/rtl8187.ko"
        self.assertTrue(link.is_symlink())
        self.assertEqual(link.resolve(),
                         (self.tree / "drivers/net/wireless/rtl8187.ko")
                         .resolve())
        self.assertEqual((moddir / "modules.order").read_text(),
                         "kernel/drivers/net/wireless/rtl8187.ko\n")
        self.assertTrue((moddir / "modules.builtin").is_file())
        self.assertEqual(depmod.call_args[0][0],
                         ["depmod", "-b", str(dest), "5.10.262"])

    def test_unbuilt_modules(self):
        (self.tree / "drivers/net/wireless/rtl8187.ko").unlink()
        with self.assertRaises(BenchError) as ctx:
            usertree.link_modules(self.tree, "5.10.262",
                                  self.root / "entry", "--kernel-tree x")
        self.assertIn("not built, e.g. drivers/net/wireless/rtl8187.ko "
                      "(run `make modules` there)", str(ctx.exception))

    def test_modules_order_leaving_the_tree_refused(self):
        # root made the links: `..` put one at <base>/etc/ld.so.preload
        outside = self.root / "etc"
        outside.mkdir()
        (outside / "x.ko").write_bytes(b"\x7fELF")
        for entry in ("../../../../../etc/ld.so.preload",
                      "drivers/../../etc/x.ko", "/etc/passwd.ko"):
            (self.tree / "modules.order").write_text(entry + "\n")
            dest = self.root / f"entry{len(entry)}"
            with self.assertRaisesRegex(
                    BenchError, f"--kernel-tree x: modules.order names "
                    f"{entry}, not a path inside the tree"):
                usertree.link_modules(self.tree, "5.10.262", dest,
                                      "--kernel-tree x")
            self.assertFalse((outside / "ld.so.preload").exists())
            self.assertFalse(list(dest.rglob("*.ko")))

    def test_module_linking_out_of_the_tree_refused(self):
        ko = self.tree / "drivers/net/wireless/rtl8187.ko"
        ko.unlink()
        (self.root / "secret.ko").write_text("root only")
        ko.symlink_to(self.root / "secret.ko")
        with self.assertRaisesRegex(
                BenchError, "--kernel-tree x: drivers/net/wireless/"
                "rtl8187.ko leads out of the tree"):
            usertree.link_modules(self.tree, "5.10.262",
                                  self.root / "entry", "--kernel-tree x")

    def test_release_outside_its_alphabet_refused(self):
        with self.assertRaisesRegex(BenchError, "not a kernel release"):
            usertree.link_modules(self.tree, "../../etc", self.root / "e",
                                  "--kernel-tree x")

    def test_modules_order_forms(self):
        (self.tree / "modules.order").write_text(
            "kernel/drivers/a.ko\ndrivers/b.ko\ndrivers/c.o\n\n")
        self.assertEqual(usertree._module_paths(self.tree),
                         ["drivers/a.ko", "drivers/b.ko", "drivers/c.ko"])


if __name__ == "__main__":
    unittest.main()
