"""Source kernels of another architecture (i386): their build tree and
cache keys are their own, every make of the tree names the architecture,
and a fragment may unset what an earlier one set."""
import dataclasses
import pathlib
import tempfile
import unittest
from unittest import mock

from helpers import REPO  # noqa: F401
from ndisbench_lib import kernels
from ndisbench_lib.build import kbuild
from ndisbench_lib.build.cache import Cache
from ndisbench_lib.errors import BenchError


def tree_of(kernel, root):
    with mock.patch.object(kbuild.debian, "installed_version",
                           return_value="6.1.1-1"), \
            mock.patch.object(kbuild, "compiler_id", return_value="gcc"):
        return kbuild.SourceTree(kernel, Cache(pathlib.Path(root)))


class SourceTreeArchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.src61 = {k.name: k for k in kernels.load_kernels()}["src-6.1"]

    def test_arch_is_in_the_tree_key(self):
        amd64 = tree_of(self.src61, self.tmp.name)
        i386 = tree_of(dataclasses.replace(self.src61, arch="i386"),
                       self.tmp.name)
        self.assertNotEqual(amd64.key, i386.key)
        self.assertEqual(i386.inputs["arch"], "i386")
        # amd64 keys stay what they were (the warm cache stays warm)
        self.assertNotIn("arch", amd64.inputs)

    def test_every_make_names_the_arch(self):
        i386 = tree_of(dataclasses.replace(self.src61, arch="i386"),
                       self.tmp.name)
        amd64 = tree_of(self.src61, self.tmp.name)
        self.assertEqual(i386.make_command("bzImage")[-2:],
                         ["ARCH=i386", "bzImage"])
        self.assertNotIn("ARCH=i386", amd64.make_command("bzImage"))
        with mock.patch.object(kbuild, "run_logged") as run:
            i386.make("olddefconfig", what="x")
        self.assertIn("ARCH=i386", run.call_args.args[0])
        self.assertIn("olddefconfig", run.call_args.args[0])


class CheckConfigTest(unittest.TestCase):
    def check(self, fragments, config):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            tree = kbuild.SourceTree.__new__(kbuild.SourceTree)
            tree.who, tree.src, tree.configs = "kernel 'k'", root, []
            for n, text in enumerate(fragments):
                path = root / f"f{n}.config"
                path.write_text(text)
                tree.configs.append(path)
            tree.config_names = "+".join(c.name for c in tree.configs)
            (root / ".config").write_text(config)
            tree.check_config()

    def test_a_later_fragment_unsets_an_option(self):
        frags = ["CONFIG_64BIT=y\nCONFIG_PCI=y\n",
                 "# CONFIG_64BIT is not set\n"]
        self.check(frags, "CONFIG_PCI=y\n# CONFIG_64BIT is not set\n")
        with self.assertRaises(BenchError) as ctx:
            self.check(frags, "CONFIG_PCI=y\nCONFIG_64BIT=y\n")
        self.assertIn("CONFIG_64BIT is not set", str(ctx.exception))
        self.assertNotIn("\n", str(ctx.exception))

    def test_a_set_option_lost_is_still_named(self):
        with self.assertRaises(BenchError) as ctx:
            self.check(["CONFIG_PCI=y\n"], "# CONFIG_PCI is not set\n")
        self.assertIn("CONFIG_PCI=y", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
