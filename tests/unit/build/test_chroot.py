"""build/chroot.py: a Debian kernel of another suite builds its modules in
a chroot of that suite, made once by mmdebstrap from the host's mirror,
cached as a tarball keyed by its package versions, never half-written."""
import json
import pathlib
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib.build import chroot, confine, debian
from ndisbench_lib.build.cache import Cache
from ndisbench_lib.errors import BuildError

SOURCES = ("deb [signed-by=/k.gpg] http://m.example/debian trixie-backports "
           "main\ndeb [signed-by=/k.gpg] http://m.example/debian trixie main"
           "\n")
VERSIONS = {"gcc": "4:14.2.0-1", "make": "4.4.1-2", "kmod": "34.2-2",
            "linux-headers-7.3.4+deb13-amd64": "7.3.4-1~bpo13+1"}


class CommandTest(unittest.TestCase):
    def test_mmdebstrap_arguments(self):
        prefs = pathlib.Path("/c/x/ndisbench")
        cmd = chroot.mmdebstrap_command(
            "trixie-backports", ["gcc=4:14.2.0-1", "make=4.4.1-2"], SOURCES,
            pathlib.Path("/c/x/chroot.tar.zst"), prefs)
        # unshare mode: the packages' maintainer scripts run in private
        # mount and pid namespaces, nothing mounted on the host's view
        self.assertEqual(cmd[:3], ["mmdebstrap", "--variant=apt",
                                   "--mode=unshare"])
        self.assertIn("--include=gcc=4:14.2.0-1,make=4.4.1-2", cmd)
        self.assertIn('--aptopt=Acquire::Check-Valid-Until "false"', cmd)
        self.assertIn('--aptopt=Acquire::Retries "3"', cmd)
        self.assertIn("--dpkgopt=path-exclude=/etc/kernel/postinst.d/*", cmd)
        self.assertIn(f"--setup-hook=copy-in {prefs} "
                      f"/etc/apt/preferences.d/", cmd)
        # The base suite names the release; the sources follow the target.
        at = cmd.index("/c/x/chroot.tar.zst")
        self.assertEqual(cmd[at - 1], "trixie")
        self.assertEqual(cmd[at + 1:], SOURCES.strip().splitlines())
        plain = chroot.mmdebstrap_command("sid", ["gcc=1"], "deb x sid main",
                                          pathlib.Path("/t.tar.zst"))
        self.assertFalse(any(a.startswith("--setup-hook") for a in plain))

    def test_make_runs_confined_in_the_chroot(self):
        place = chroot.Chroot("k", "sid", pathlib.Path("/c/trees/k/src"))
        work = place.trees / "a" / "src"
        with mock.patch.object(confine, "build_user", return_value=None):
            cmd = place.command(["make", "-C", "/usr/src/linux-headers-x"],
                                work)
        self.assertEqual(cmd[:2], ["bwrap", "--unshare-all"])
        joined = " ".join(cmd)
        # the chroot read-only as /, only the work tree writable, a /proc
        # of its own (not the host's), no chroot(8) as root
        self.assertIn("--ro-bind /c/trees/k/src / ", joined)
        self.assertIn("--bind /c/trees/k/src/build/a/src /build/a/src",
                      joined)
        self.assertIn("--proc /proc", joined)
        self.assertNotIn("chroot", cmd)
        self.assertEqual(cmd[-3:], ["make", "-C", "/usr/src/linux-headers-x"])
        self.assertEqual(place.inside(work), "/build/a/src")

    def test_as_root_the_build_user_runs_it(self):
        place = chroot.Chroot("k", "sid", pathlib.Path("/c/trees/k/src"))
        user = mock.Mock(pw_uid=999, pw_gid=995)
        with mock.patch.object(confine, "build_user", return_value=user):
            cmd = place.command(["make"], place.trees / "a" / "src")
        self.assertEqual(cmd[2], str(confine.ENTER))
        spec = json.loads(cmd[3])
        self.assertEqual((spec["uid"], spec["gid"]), (999, 995))
        self.assertEqual(spec["stage"], ["/c/trees/k/src",
                                         "/c/trees/k/src/build/a/src"])


class EnsureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cache = Cache(pathlib.Path(self.tmp.name))

    def tearDown(self):
        self.tmp.cleanup()

    def recipe(self, **versions):
        return chroot.Recipe("trixie-backports", "7.3.4+deb13-amd64",
                             SOURCES, dict(VERSIONS, **versions))

    def test_key_follows_the_package_versions(self):
        self.assertEqual(self.recipe().key, self.recipe().key)
        self.assertNotEqual(self.recipe().key,
                            self.recipe(gcc="4:14.3.0-1").key)
        other = chroot.Recipe("trixie-backports", "7.3.4+deb13-amd64",
                              SOURCES.replace("m.example", "n.example"),
                              VERSIONS)
        self.assertNotEqual(self.recipe().key, other.key)

    def fake_mmdebstrap(self, calls, fail=False):
        def run_logged(cmd, log, what, cwd=None, env=None, timeout=0,
                       tag="build"):
            calls.append(cmd)
            if cmd[0] == "mmdebstrap":
                tarball = pathlib.Path(next(a for a in cmd
                                            if a.endswith(".tar.zst")))
                tarball.write_bytes(b"half")
                if fail:
                    raise BuildError(what, log, 1, ["E: unable to resolve"])
                # prefs were copied in before the first update
                hook = next(a for a in cmd if a.startswith("--setup-hook"))
                prefs = pathlib.Path(hook.split()[1])
                self.assertIn("Pin: release n=trixie-backports",
                              prefs.read_text())
            elif cmd[0] == "tar":
                dest = pathlib.Path(cmd[cmd.index("-C") + 1])
                (dest / "usr").mkdir()
        return run_logged

    def test_made_once_and_unpacked_once(self):
        calls = []
        with mock.patch.object(chroot, "run_logged",
                               self.fake_mmdebstrap(calls)), \
                mock.patch.object(chroot, "Step", mock.MagicMock()):
            first = chroot.ensure(self.cache, "trixie-backports",
                                  "7.3.4+deb13-amd64", "k",
                                  made=self.recipe())
            again = chroot.ensure(self.cache, "trixie-backports",
                                  "7.3.4+deb13-amd64", "k",
                                  made=self.recipe())
        self.assertEqual([c[0] for c in calls], ["mmdebstrap", "tar"])
        self.assertEqual(first, again)
        self.assertTrue((first.root / "build").is_dir())
        self.assertTrue((first.root / chroot.EXTRACTED).is_file())
        self.assertIsNotNone(self.cache.lookup("chroots", first.key))

    def test_failed_mmdebstrap_leaves_nothing(self):
        calls = []
        with mock.patch.object(chroot, "run_logged",
                               self.fake_mmdebstrap(calls, fail=True)), \
                mock.patch.object(chroot, "Step", mock.MagicMock()):
            with self.assertRaises(BuildError):
                chroot.ensure(self.cache, "trixie-backports",
                              "7.3.4+deb13-amd64", "k", made=self.recipe())
        self.assertEqual(list((self.cache.root / "chroots").iterdir()), [])
        self.assertFalse((self.cache.root / "trees").exists() and any(
            p.name.endswith("src") for p in
            (self.cache.root / "trees").rglob("src")))

    def test_versions_come_from_the_suites_lists(self):
        seen = []

        def show(name, who, env=None):
            seen.append((name, env))
            return debian.Package(name, "1.0", [])

        with mock.patch.object(debian, "suite_apt",
                               return_value={"APT_CONFIG": "/a"}), \
                mock.patch.object(debian, "show", show):
            made = chroot.recipe(self.cache, "sid", "7.2.13+deb14-amd64",
                                 "k", sources="deb x sid main\n")
        self.assertEqual(sorted(made.versions), sorted(
            ["gcc", "make", "kmod", "linux-headers-7.2.13+deb14-amd64"]))
        self.assertTrue(all(env == {"APT_CONFIG": "/a"} for _, env in seen))

    def test_a_foreign_architecture_gets_no_headers_package(self):
        # bullseye's i386 headers package holds i386 tools this host
        # cannot run: the chroot has the suite's compiler only, and the
        # kernel's unpacked headers (amd64 kbuild) are copied in.
        def show(name, who, env=None):
            return debian.Package(name, "1.0", [])

        with mock.patch.object(debian, "suite_apt", return_value={}), \
                mock.patch.object(debian, "show", show):
            made = chroot.recipe(self.cache, "bullseye",
                                 "5.10.0-32-686-pae", "k",
                                 sources="deb x bullseye main\n",
                                 headers=False)
        self.assertEqual(sorted(made.versions), ["gcc", "kmod", "make"])


class ForeignHeadersTest(unittest.TestCase):
    def test_the_kernels_headers_are_copied_into_the_chroot_once(self):
        from ndisbench_lib.build import modules
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            src = tmp / "entry" / "headers" / "usr" / "src"
            kdir = src / "linux-headers-5.10.0-32-686-pae"
            kdir.mkdir(parents=True)
            (kdir / "Makefile").write_text("include ../common/Makefile\n")
            (src / "linux-headers-5.10.0-32-common").mkdir()
            root = tmp / "root"
            (root / "usr").mkdir(parents=True)
            place = chroot.Chroot("c", "bullseye", root)
            (tmp / "entry/headers/usr/lib/linux-kbuild-5.10").mkdir(
                parents=True)
            first = modules.foreign_kdir(place, "artkey", kdir)
            self.assertEqual(first, "/usr/src/ndisbench-artkey/usr/src/"
                                    "linux-headers-5.10.0-32-686-pae")
            self.assertTrue((root / first.lstrip("/") / "Makefile").is_file())
            self.assertTrue((root / "usr/src/ndisbench-artkey/usr/src/"
                             "linux-headers-5.10.0-32-common").is_dir())
            self.assertTrue((root / "usr/src/ndisbench-artkey/usr/lib/"
                             "linux-kbuild-5.10").is_dir())
            (kdir / "Makefile").write_text("changed\n")
            self.assertEqual(modules.foreign_kdir(place, "artkey", kdir),
                             first)
            # copied once: a later call finds it in place
            self.assertIn("include", (root / first.lstrip("/") /
                                      "Makefile").read_text())


if __name__ == "__main__":
    unittest.main()


class VermagicTest(unittest.TestCase):
    """A module built with the wrong headers or toolchain is a build
    failure naming both releases, not a load failure in the guest."""

    def art(self, release):
        return mock.Mock(release=release, kernel=mock.Mock(), symvers=None)

    def test_matches_the_kernels_release(self):
        from ndisbench_lib.build import modules
        from ndisbench_lib.errors import BenchError
        with mock.patch.object(modules, "capture",
                               return_value="7.2.13+deb14-amd64 SMP preempt "
                                            "mod_unload \n"):
            modules.check_vermagic(self.art("7.2.13+deb14-amd64"),
                                   pathlib.Path("/m/ndiswrapper.ko"))
            with self.assertRaises(BenchError) as ctx:
                modules.check_vermagic(self.art("6.12.118+deb13-amd64"),
                                       pathlib.Path("/m/ndiswrapper.ko"))
        msg = str(ctx.exception)
        self.assertIn("ndiswrapper.ko", msg)
        self.assertIn("vermagic 7.2.13+deb14-amd64", msg)
        self.assertIn("6.12.118+deb13-amd64", msg)


class UnpackTest(unittest.TestCase):
    """An unpacked chroot keeps no setuid/setgid program: nothing in it
    should raise privileges for a build run unprivileged inside."""

    def test_setuid_and_setgid_bits_are_stripped(self):
        import os
        import stat
        import subprocess
        with tempfile.TemporaryDirectory() as tmp:
            base = pathlib.Path(tmp)
            src = base / "src"
            (src / "usr/bin").mkdir(parents=True)
            modes = {"su": 0o4755, "wall": 0o2755, "both": 0o6750,
                     "plain": 0o755}
            for name, mode in modes.items():
                (src / "usr/bin" / name).write_text("#!/bin/sh\n")
                os.chmod(src / "usr/bin" / name, mode)
            (src / "var/mail").mkdir(parents=True)
            os.chmod(src / "var/mail", 0o2775)
            os.symlink("su", src / "usr/bin/sulink")
            tarball = base / "chroot.tar.zst"
            subprocess.run(["tar", "--zstd", "-cpf", str(tarball), "-C",
                            str(src), "."], check=True, timeout=60)
            dest = base / "work" / "src"
            chroot.unpack(tarball, base / "work", dest, base / "log", "t")
            got = {name: stat.S_IMODE((dest / "usr/bin" / name).stat()
                                      .st_mode) for name in modes}
            self.assertEqual(got, {"su": 0o755, "wall": 0o755,
                                   "both": 0o750, "plain": 0o755})
            # a folder's setgid only passes its group on: it stays
            self.assertEqual(stat.S_IMODE((dest / "var/mail").stat()
                                          .st_mode), 0o2775)
            self.assertTrue((dest / "usr/bin/sulink").is_symlink())
