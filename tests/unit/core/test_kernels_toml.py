"""guest/kernels.toml loading: the real matrix loads, bad entries give one
error line naming the entry and the field."""
import dataclasses
import pathlib
import tempfile
import unittest

from helpers import REPO
from ndisbench_lib import kernels
from ndisbench_lib.errors import BenchError
from build.test_usertree import make_tree

GOOD_BUILT = """
[[kernel]]
name = "k1"
source = "linux-source-6.1"
config = "guest/config/guest.config"
patch = "guest/patches/policy-2.6.25-rc1.patch"
policy = "2.6.25-rc1"
"""

BASE = """
[[kernel]]
name = "b1"
source = "linux-source-6.1"
config = "guest/config/guest.config"
patches = "guest/patches"
policy_row = "policy-{policy}-b"
policy = "2.6.25-rc4"
"""
POLICIES = """
[[policy]]
name = "2.6.16"
bases = ["b1"]

[[policy]]
name = "2.6.25-rc1"
bases = ["b1"]
"""


class KernelsTomlTest(unittest.TestCase):
    def load(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
            f.write(text)
            f.flush()
            return kernels.load_kernels(pathlib.Path(f.name))

    def error(self, text):
        with self.assertRaises(BenchError) as ctx:
            self.load(text)
        msg = str(ctx.exception)
        self.assertNotIn("\n", msg)
        return msg

    def test_real_matrix_loads(self):
        ks = kernels.load_kernels()
        names = [k.name for k in ks]
        for wanted in ("debian-6.1", "debian-6.12", "policy-2.6.25-rc1",
                       "policy-2.6.25-rc4", "policy-2.6.19-rc2",
                       "policy-2.6.19-rc4", "policy-2.6.16",
                       "policy-pre-2.6.16", "src-6.1"):
            self.assertIn(wanted, names)
        rc1 = ks[names.index("policy-2.6.25-rc1")]
        self.assertEqual(rc1.policy.modes["ndiswrapper"], "module")
        self.assertTrue(rc1.patch.is_file())
        self.assertFalse(rc1.is_debian)

    def test_october_2006_rows(self):
        # The GPL check on the module's own taint came with 2.6.19-rc2, the
        # ndiswrapper fix with 2.6.19-rc4: no row may keep the old labels.
        by_name = {k.name: k for k in kernels.load_kernels()}
        self.assertNotIn("policy-2.6.19-rc3", by_name)
        rc2 = by_name["policy-2.6.19-rc2"].policy
        self.assertEqual(rc2.modes, {"ndiswrapper": "module",
                                     "driverloader": "module"})
        rc1 = by_name["policy-2.6.19-rc1"].policy
        self.assertEqual(rc1.modes, {"ndiswrapper": "flagged",
                                     "driverloader": "flagged"})
        rc4 = by_name["policy-2.6.19-rc4"].policy
        self.assertEqual(rc4.modes, {"ndiswrapper": "kernel",
                                     "driverloader": "module"})
        for name in ("policy-2.6.19-rc1", "policy-2.6.19-rc2",
                     "policy-2.6.19-rc4"):
            self.assertEqual(by_name[name].patch.name, name + ".patch")

    def test_good_entry(self):
        (k,) = self.load(GOOD_BUILT)
        self.assertEqual(k.policy.name, "2.6.25-rc1")
        self.assertEqual(k.configs, (REPO / "guest/config/guest.config",))

    def test_unknown_policy_names_entry(self):
        msg = self.error(GOOD_BUILT.replace('policy = "2.6.25-rc1"',
                                            'policy = "2.6.99"'))
        self.assertIn("kernel 'k1'", msg)
        self.assertIn("unknown policy '2.6.99'", msg)

    def test_missing_patch_file(self):
        msg = self.error(GOOD_BUILT.replace("policy-2.6.25-rc1.patch",
                                            "nope.patch"))
        self.assertIn("kernel 'k1'", msg)
        self.assertIn("patch 'guest/patches/nope.patch' does not exist", msg)

    def test_unknown_field(self):
        msg = self.error(GOOD_BUILT + 'colour = "blue"\n')
        self.assertIn("unknown field(s) colour", msg)

    def test_unknown_source(self):
        msg = self.error(GOOD_BUILT.replace('"linux-source-6.1"',
                                            '"git"'))
        self.assertIn("unknown source 'git'", msg)

    def test_debian_needs_packages(self):
        msg = self.error('[[kernel]]\nname = "d"\nsource = "debian"\n'
                         'policy = "2.6.25-rc4"\nheaders = "x"\n')
        self.assertIn("kernel 'd': needs image", msg)

    def test_duplicate_name(self):
        self.assertIn("duplicate name", self.error(GOOD_BUILT + GOOD_BUILT))

    def test_bad_toml(self):
        self.assertIn("not valid TOML", self.error("[[kernel]\n"))

    def test_bad_name(self):
        self.assertIn("name must match",
                      self.error(GOOD_BUILT.replace('"k1"', '"K 1"')))

    def test_base_expands_its_policy_rows(self):
        """A [[kernel]] with a patch folder is a base: its own row, then
        one row per [[policy]] naming it, right after it, of the same
        source, suite, arch, configs and default, patched with the folder's
        policy-<policy>.patch."""
        ks = self.load(BASE + POLICIES)
        self.assertEqual([k.name for k in ks],
                         ["b1", "policy-2.6.16-b", "policy-2.6.25-rc1-b"])
        base, first, second = ks
        self.assertEqual((base.patch, base.policy.name),
                         (None, "2.6.25-rc4"))
        self.assertEqual(first.patch,
                         REPO / "guest/patches/policy-2.6.16.patch")
        self.assertEqual(second.policy.name, "2.6.25-rc1")
        for k in (first, second):
            self.assertEqual(dataclasses.replace(
                k, name="b1", patch=None, policy=base.policy), base)

    def test_base_and_policy_errors(self):
        cases = {
            POLICIES.replace('"b1"]', '"nope"]'):
                "policy '2.6.16': base 'nope' is not a [[kernel]] entry "
                "with patches",
            POLICIES.replace('"2.6.16"', '"2.6.99"'):
                "policy '2.6.99': unknown policy (known: pre-2.6.16, ",
            POLICIES + 'colour = "blue"\n':
                "policy '2.6.25-rc1': unknown field(s) colour",
            POLICIES.replace('bases = ["b1"]\n', '', 1):
                "policy '2.6.16': bases must be a list of kernel names",
        }
        for policies, want in cases.items():
            msg = self.error(BASE + policies)
            self.assertIn(f": {want}", msg)
        self.assertIn("kernel 'b1': a base (patches) takes no patch",
                      self.error(BASE + 'patch = "guest/patches/'
                                 'policy-2.6.16.patch"\n' + POLICIES))
        self.assertIn("kernel 'b1': patches 'guest/nope' is not a folder",
                      self.error(BASE.replace('"guest/patches"',
                                              '"guest/nope"') + POLICIES))
        self.assertIn("kernel 'b1': policy_row without patches",
                      self.error(BASE.replace('patches = "guest/patches"\n',
                                              "")))
        self.assertIn("kernel 'b1': policy_row must contain {policy} once",
                      self.error(BASE.replace("{policy}-b", "b") + POLICIES))
        self.assertIn("kernel 'policy-2.6.16-b': patch 'guest/config/"
                      "policy-2.6.16.patch' does not exist",
                      self.error(BASE.replace('"guest/patches"',
                                              '"guest/config"') + POLICIES))
        self.assertIn("kernel 'policy-2.6.16-b': duplicate name",
                      self.error(BASE + POLICIES + GOOD_BUILT.replace(
                          '"k1"', '"policy-2.6.16-b"')))

    def test_real_matrix_declares_each_policy_once(self):
        """A policy is declared once, in tests/e2e/expectations.toml: with
        no [[policy]] table, the three bases (6.1, its i386 build,
        bullseye's 5.10) each get every policy, in that file's order."""
        import tomllib
        data = tomllib.loads((REPO / "guest/kernels.toml").read_text())
        bases = [k["name"] for k in data["kernel"] if "patches" in k]
        self.assertEqual(bases, ["src-6.1", "src-6.1-i386", "src-5.10"])
        self.assertNotIn("policy", data)
        exp = kernels.load_expectations()
        self.assertFalse([k["name"] for k in data["kernel"]
                          if k["name"].startswith("policy-")])
        rows = [k for k in kernels.load_kernels()
                if k.name.startswith("policy-")]
        # one row per policy and base (7 x 3 today): a new policy is its
        # expectations entry and patches, not a new count here
        self.assertEqual(len(rows), len(exp.policies) * len(bases))
        self.assertEqual([k.policy.name for k in rows],
                         list(exp.policies) * len(bases))
        self.assertGreaterEqual(len(exp.policies), 7)

    def test_without_policy_tables_every_base_gets_every_policy(self):
        """No [[policy]] table: each base is followed by one row per policy
        of the expectations, in their order; [[policy]] tables, where
        present, choose the bases instead."""
        exp = kernels.load_expectations()
        ks = self.load(BASE)
        self.assertEqual([k.name for k in ks],
                         ["b1"] + [f"policy-{p}-b" for p in exp.policies])
        self.assertEqual([k.patch for k in ks[1:]],
                         [REPO / f"guest/patches/policy-{p}.patch"
                          for p in exp.policies])
        self.assertEqual(len(self.load(BASE + POLICIES)), 3)

    def test_select_unknown(self):
        with self.assertRaises(BenchError) as ctx:
            kernels.select(kernels.load_kernels(), ["nope"])
        self.assertIn("unknown kernel(s) nope", str(ctx.exception))

    def test_slowdown_is_validated(self):
        for bad in ("0", "1.5", "true", "\"4\"", "21"):
            text = GOOD_BUILT + f"slowdown = {bad}\n"
            self.assertIn("slowdown", self.error(text))

    def test_debug_kernel_is_slower(self):
        self.assertEqual(self.load(GOOD_BUILT + "slowdown = 4\n")[0]
                         .slowdown, 4)
        self.assertEqual(self.load(GOOD_BUILT)[0].slowdown, 1)


    def test_default_is_validated_and_selects(self):
        self.assertIn("default must be true or false",
                      self.error(GOOD_BUILT + "default = \"no\"\n"))
        two = GOOD_BUILT + GOOD_BUILT.replace('"k1"', '"k2"') + \
            "default = false\n"
        ks = self.load(two)
        self.assertEqual([k.name for k in kernels.select(ks, None)], ["k1"])
        self.assertEqual([k.name for k in kernels.select(ks, ["k2"])],
                         ["k2"])
        self.assertEqual([k.name for k in kernels.select(ks, ["all"])],
                         ["k1", "k2"])

    def test_arch_defaults_to_amd64_and_is_validated(self):
        self.assertEqual(self.load(GOOD_BUILT)[0].arch, "amd64")
        self.assertEqual(self.load(GOOD_BUILT + 'arch = "i386"\n')[0].arch,
                         "i386")
        msg = self.error(GOOD_BUILT + 'arch = "arm64"\n')
        self.assertIn("kernel 'k1'", msg)
        self.assertIn("arch 'arm64'", msg)
        self.assertIn("amd64, i386", msg)
        self.assertIn("arch", self.error(GOOD_BUILT + "arch = 32\n"))

    def test_select_arch(self):
        two = GOOD_BUILT + GOOD_BUILT.replace('"k1"', '"k2"') + \
            'arch = "i386"\n'
        ks = self.load(two)
        self.assertEqual([k.name for k in kernels.select_arch(ks, "i386")],
                         ["k2"])
        self.assertEqual([k.name for k in kernels.select_arch(ks, "amd64")],
                         ["k1"])
        self.assertEqual([k.name for k in kernels.select_arch(ks, "all")],
                         ["k1", "k2"])
        with self.assertRaises(BenchError) as ctx:
            kernels.select_arch(ks, "x86")
        self.assertIn("--arch x86", str(ctx.exception))
        # nothing of that architecture among the selected: said so
        with self.assertRaises(BenchError) as ctx:
            kernels.select_arch(ks[:1], "i386")
        self.assertIn("no i386 kernel", str(ctx.exception))
        # run --arch: alone, every kernel of it (default = false ones too);
        # with --kernel, those of the named that are of it
        k3 = self.load(two + GOOD_BUILT.replace('"k1"', '"k3"') +
                       'arch = "i386"\ndefault = false\n')
        self.assertEqual([k.name for k in kernels.select(k3, None, "i386")],
                         ["k2", "k3"])
        self.assertEqual([k.name for k in kernels.select(k3, ["k1", "k3"],
                                                         "i386")], ["k3"])
        self.assertEqual([k.name for k in kernels.select(k3, None, "all")],
                         ["k1", "k2", "k3"])
        self.assertEqual([k.name for k in kernels.select(k3, None)],
                         ["k1", "k2"])

    def test_i386_rows_in_the_matrix(self):
        by_name = {k.name: k for k in kernels.load_kernels()}
        k = by_name["debian-6.1-686"]
        self.assertEqual(k.arch, "i386")
        self.assertEqual(k.image, "linux-image-686-pae")
        self.assertEqual(k.headers, "linux-headers-686-pae")
        self.assertEqual(by_name["debian-6.1"].arch, "amd64")

    def test_i386_policy_rows(self):
        """src-6.1 and every policy kernel also for i386 (the wrapper has
        32-bit thunks of its own to prove), from the same source, fragments and patches plus the i386
        fragment; the same policy (expectations are per policy, not per
        architecture); out of a plain run, selected by --arch i386."""
        exp = kernels.load_expectations()
        ks = kernels.load_kernels()
        by_name = {k.name: k for k in ks}
        plain = {k.name for k in kernels.select(ks, None)}
        i386 = {k.name for k in kernels.select(ks, None, "i386")}
        i386_config = REPO / "guest" / "config" / "i386.config"
        pairs = [("src-6.1", "src-6.1-i386")] + [
            (f"policy-{p}", f"policy-{p}-i386") for p in exp.policies]
        for amd64_name, name in pairs:
            amd64, k = by_name[amd64_name], by_name[name]
            self.assertEqual((k.arch, k.default), ("i386", False), name)
            self.assertEqual((k.source, k.suite, k.patch, k.policy),
                             (amd64.source, amd64.suite, amd64.patch,
                              amd64.policy), name)
            self.assertEqual(k.configs, amd64.configs + (i386_config,), name)
            self.assertNotIn(name, plain)
            self.assertIn(name, i386)
        self.assertEqual(by_name["policy-2.6.25-rc1-i386"].policy
                         .modes["ndiswrapper"], "module")

    def test_i386_fragment_says_why(self):
        """Every option of the i386 fragment has its reason above it."""
        lines = (REPO / "guest/config/i386.config").read_text().splitlines()
        options = [n for n, line in enumerate(lines)
                   if line.startswith("CONFIG_") or
                   line.endswith(" is not set")]
        self.assertTrue(options)
        for n in options:
            self.assertTrue(n > 0 and lines[n - 1].startswith("#") and
                            not lines[n - 1].endswith(" is not set"),
                            lines[n])

    def test_suite_is_validated(self):
        (k,) = self.load(GOOD_BUILT + 'suite = "bullseye"\n')
        self.assertEqual(k.suite, "bullseye")
        self.assertEqual(self.load(GOOD_BUILT)[0].suite, "")
        for bad in ('"Bullseye"', '"../x"', "5"):
            msg = self.error(GOOD_BUILT + f"suite = {bad}\n")
            self.assertIn("kernel 'k1'", msg)
        self.assertIn("suite must be a Debian suite name",
                      self.error(GOOD_BUILT + 'suite = "a b"\n'))
        debian = ('[[kernel]]\nname = "d"\nsource = "debian"\nimage = "i"\n'
                  'headers = "h"\npolicy = "2.6.25-rc4"\n')
        (d,) = self.load(debian + 'suite = "sid"\n')
        self.assertEqual((d.suite, d.is_debian), ("sid", True))
        self.assertEqual(self.load(debian)[0].suite, "")
        self.assertIn("suite must be a Debian suite name",
                      self.error(debian + 'suite = "Sid"\n'))

    def test_every_suite_in_the_matrix(self):
        """Debian's kernel of every suite the archive serves (what users
        meet),
        5.10 to 7.x, in the test command (all); each of another suite than
        the host's names it (its modules are built in a chroot of it) and
        stays out of a plain run (a chroot each would hold a newcomer's
        first run past 25 minutes: docs/measurements.md, "A new user's first
        run")."""
        by_name = {k.name: k for k in kernels.load_kernels()}
        plain = {k.name for k in kernels.select(list(by_name.values()),
                                                None)}
        every = {k.name for k in kernels.select(list(by_name.values()),
                                                [kernels.ALL])}
        wanted = {"debian-5.10": "bullseye", "debian-6.1": "",
                  "debian-6.12": "", "debian-6.12-trixie": "trixie",
                  "debian-7.x-bpo": "trixie-backports", "debian-sid": "sid"}
        for name, suite in wanted.items():
            k = by_name[name]
            self.assertTrue(k.is_debian, name)
            self.assertEqual(k.suite, suite, name)
            self.assertIn(name, every)
            self.assertEqual(name in plain, not suite, name)

    def test_suite_sources_are_not_installed_by_setup(self):
        from ndisbench_lib.commands import setup
        ks = kernels.load_kernels()
        pkgs = setup.packages_for(ks)
        self.assertIn("linux-source-6.1", pkgs)
        self.assertNotIn("linux-source-5.10", pkgs)

    def test_5_10_rows(self):
        """Every policy also on bullseye's 5.10, from guest/patches/5.10/:
        in the test command (all), not in a plain run (a second kernel
        tree to build would hold a newcomer's first run)."""
        exp = kernels.load_expectations()
        by_name = {k.name: k for k in kernels.load_kernels()}
        plain = {k.name for k in kernels.select(list(by_name.values()),
                                                None)}
        control = by_name["src-5.10"]
        self.assertEqual((control.source, control.suite, control.patch),
                         ("linux-source-5.10", "bullseye", None))
        self.assertNotIn("src-5.10", plain)
        self.assertIn("src-5.10", {k.name for k in kernels.select(
            list(by_name.values()), [kernels.ALL])})
        for policy in exp.policies:
            k = by_name[f"policy-{policy}-5.10"]
            self.assertEqual(k.policy.name, policy)
            self.assertEqual(k.suite, "bullseye")
            self.assertEqual(k.patch, REPO / "guest" / "patches" / "5.10" /
                             f"policy-{policy}.patch")
            self.assertEqual(k.configs, by_name["src-6.1"].configs)
            self.assertNotIn(k.name, plain)

    def test_debug_kernel_is_not_in_a_plain_run(self):
        """Its cold build would hold a newcomer's first `run` for tens of
        minutes; the test command names it (all)."""
        ks = kernels.load_kernels()
        plain = [k.name for k in kernels.select(ks, None)]
        self.assertNotIn("debug-6.1", plain)
        self.assertIn("src-6.1", plain)
        self.assertIn("debug-6.1",
                      [k.name for k in kernels.select(ks, ["all"])])


class PolicyPatchTest(unittest.TestCase):
    """Every policy patch says which historical commit it reproduces; a
    debug patch says that it is not one."""

    def test_patch_headers_name_their_commit(self):
        exp = kernels.load_expectations()
        for k in kernels.load_kernels():
            if not k.patch:
                continue
            head = k.patch.read_text().split("\n---\n")[0]
            if any(ln.startswith("Debug: not a historical policy")
                   for ln in head.splitlines()):
                self.assertTrue(k.name.startswith("debug-"), k.name)
                continue
            self.assertIn(f"reproduce the {k.policy.name} taint policy",
                          head)
            reproduces = [ln for ln in head.splitlines()
                          if ln.startswith("Reproduces: ")]
            self.assertEqual(len(reproduces), 1, k.patch.name)
            commit = exp.policies[k.policy.name].commit.split()[-1]
            if all(c in "0123456789abcdef" for c in commit):
                self.assertIn(commit, reproduces[0], k.patch.name)

    def test_5_10_patches_reproduce_the_same_commits(self):
        """A 5.10 patch names the commit its 6.1 twin names (the same
        Reproduces: line) and touches 5.10's kernel/module.c."""
        base = REPO / "guest" / "patches"
        twins = sorted((base / "5.10").glob("policy-*.patch"))
        self.assertEqual([p.name for p in twins],
                         sorted(p.name for p in base.glob("policy-*.patch")))
        for p in twins:
            head, _, body = p.read_text().partition("\n---\n")
            twin = (base / p.name).read_text().partition("\n---\n")[0]

            def line(text, prefix):
                return [ln for ln in text.splitlines()
                        if ln.startswith(prefix)]
            self.assertEqual(line(head, "Reproduces: "),
                             line(twin, "Reproduces: "), p.name)
            self.assertIn("linux-source-5.10 (kernel/module.c", head)
            self.assertTrue(body.startswith("--- a/kernel/module.c\n"
                                            "+++ b/kernel/module.c\n"),
                            p.name)


class TreeEntryTest(unittest.TestCase):
    """source = "tree": a user's kernel build folder (the folder checks
    themselves: build/test_usertree.py)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.tree = make_tree(self.root, release="5.10.262")
        self.exp = kernels.load_expectations()

    def tearDown(self):
        self.tmp.cleanup()

    def load(self, text):
        path = self.root / "kernels.toml"
        path.write_text(text)
        return kernels.load_kernels(path, self.exp)

    def test_toml_entry(self):
        (k,) = self.load(f'[[kernel]]\nname = "mine"\nsource = "tree"\n'
                         f'path = "{self.tree}"\n')
        self.assertTrue(k.is_tree)
        self.assertFalse(k.is_built)
        self.assertEqual((k.path, k.release, k.policy.name),
                         (self.tree.resolve(), "5.10.262", "2.6.25-rc4"))
        (k,) = self.load(f'[[kernel]]\nname = "mine"\nsource = "tree"\n'
                         f'path = "{self.tree}"\npolicy = "2.6.25-rc1"\n')
        self.assertEqual(k.policy.name, "2.6.25-rc1")

    def test_toml_errors_name_the_entry(self):
        for body, want in (
                ('', "needs path"),
                (f'path = "{self.root}/gone"', "not a folder"),
                (f'path = "{self.tree}"\npolicy = "2.6.99"',
                 "unknown policy '2.6.99'"),
                (f'path = "{self.tree}"\nconfig = "x"',
                 "unknown field(s) config")):
            with self.assertRaises(BenchError) as ctx:
                self.load('[[kernel]]\nname = "mine"\nsource = "tree"\n'
                          + body + "\n")
            msg = str(ctx.exception)
            self.assertIn("kernel 'mine'", msg)
            self.assertIn(want, msg)
            self.assertNotIn("\n", msg)


if __name__ == "__main__":
    unittest.main()




class ExpectationTableTest(unittest.TestCase):
    """tests/e2e/expectations.toml is read once and cannot be changed:
    what a command varies is a field of its cell plans."""

    def test_read_once(self):
        self.assertIs(kernels.load_expectations(),
                      kernels.load_expectations())

    def test_read_only(self):
        exp = kernels.load_expectations()
        for table in (exp.network, exp.messages, exp.taint_bits, exp.broken,
                      exp.module_names, exp.policies,
                      exp.policies["2.6.25-rc1"].modes,
                      exp.gpl_only_imports_if):
            with self.assertRaises(TypeError):
                table["x"] = "y"      # type: ignore[index]
        with self.assertRaises(AttributeError):
            exp.gpl_only_imports.append("x")  # type: ignore[attr-defined]
        with self.assertRaises(dataclasses.FrozenInstanceError):
            exp.leak_message = "x"    # type: ignore[misc]

    def test_no_per_command_fields(self):
        """The runner's old overrides are plan fields now."""
        names = {f.name for f in dataclasses.fields(kernels.Expectations)}
        self.assertFalse(names & {"role_gpl_imports", "own_loader_abi"})
