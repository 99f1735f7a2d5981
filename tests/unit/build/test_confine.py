"""build/confine.py: a confined build runs unprivileged, sees only what it
is given, writes only its work folder, has no network and a minimal
environment; root reads back what it left without following symlinks."""
import os
import pathlib
import pwd
import shutil
import subprocess
import sys
import tempfile
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.build import confine

HAVE_BWRAP = shutil.which(confine.BWRAP) is not None
IS_ROOT = os.geteuid() == 0


def _user_exists() -> bool:
    try:
        pwd.getpwnam(confine.BUILD_USER)
        return True
    except KeyError:
        return False


class ArgvTest(unittest.TestCase):
    def test_namespaces_env_and_binds(self):
        cmd, stage = confine.bwrap_argv(
            ["make"], ro=[pathlib.Path("/c/kernels/k")],
            rw=[pathlib.Path("/c/trees/t/src")],
            chdir=pathlib.Path("/c/trees/t/src"), env={"KBUILD": "/k"},
            host_dirs=())
        self.assertEqual(stage, [])
        self.assertEqual(cmd[:5], ["bwrap", "--unshare-all",
                                   "--die-with-parent", "--new-session",
                                   "--clearenv"])
        self.assertEqual(cmd[-2:], ["--", "make"])
        joined = " ".join(cmd)
        self.assertIn("--ro-bind /c/kernels/k /c/kernels/k", joined)
        self.assertIn("--bind /c/trees/t/src /c/trees/t/src", joined)
        self.assertIn("--setenv KBUILD /k", joined)
        self.assertIn("--setenv PATH " + confine.PATH, joined)
        self.assertIn("--proc /proc --dev /dev --tmpfs /tmp", joined)

    def test_staged_sources_and_parent_first(self):
        cmd, stage = confine.bwrap_argv(
            ["true"], ro=[pathlib.Path("/c/a/b"), pathlib.Path("/c")],
            rw=[pathlib.Path("/c/a/b")], root=pathlib.Path("/r"),
            staged=True)
        # the chroot first, then /c, then /c/a/b once, writable
        self.assertEqual(stage, ["/r", "/c", "/c/a/b"])
        self.assertEqual(cmd[5:8], ["--ro-bind", f"{confine.STAGE}/0", "/"])
        self.assertIn(f"--bind {confine.STAGE}/2 /c/a/b", " ".join(cmd))
        self.assertNotIn("/c/a/b /c/a/b", " ".join(cmd))

    def test_relative_path_refused(self):
        with self.assertRaisesRegex(confine.ConfineError,
                                    "not an absolute path"):
            confine.command(["true"], ro=[pathlib.Path("rel")])


class OutputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        (self.tmp / "secret").write_text("root's")
        self.tree = self.tmp / "tree"
        (self.tree / "driver").mkdir(parents=True)

    def test_symlinked_output_refused(self):
        (self.tree / "driver" / "x.ko").symlink_to(self.tmp / "secret")
        with self.assertRaisesRegex(confine.ConfineError,
                                    "x.ko: a symlink in a build folder"):
            confine.read_output(self.tree, "driver/x.ko")

    def test_symlinked_folder_refused_on_write(self):
        (self.tree / "lib").symlink_to(self.tmp)
        with self.assertRaisesRegex(confine.ConfineError,
                                    "lib: a symlink in a build folder"):
            confine.write_file(self.tree, "lib/secret", b"x", 0o644)
        self.assertEqual((self.tmp / "secret").read_text(), "root's")

    def test_plain_output_read(self):
        confine.write_file(self.tree, "driver/sub/x.ko", b"\x7fELF", 0o600)
        self.assertEqual(confine.read_output(self.tree, "driver/sub/x.ko"),
                         b"\x7fELF")


@unittest.skipUnless(HAVE_BWRAP, "bwrap missing (scripts/ndisbench setup)")
class RunTest(unittest.TestCase):
    """A real confined command."""

    def setUp(self):
        if IS_ROOT and not _user_exists():
            self.skipTest(f"no user {confine.BUILD_USER}")
        # A 0700 parent, as root's home is: the build still reaches its
        # folders.
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.src = self.tmp / "src"
        self.src.mkdir()
        (self.src / "in.txt").write_text("input\n")
        self.work = self.tmp / "work"
        self.work.mkdir()
        confine.own(self.work)

    def run_confined(self, script: str) -> subprocess.CompletedProcess:
        cmd = confine.command(["sh", "-c", script], ro=[self.src],
                              rw=[self.work], chdir=self.work,
                              env={"EXTRA": "yes"})
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL,
                              env={**os.environ, "SECRET_TOKEN": "leak"})

    def test_unprivileged_uid(self):
        res = self.run_confined("id -u; id -g")
        self.assertEqual(res.returncode, 0, res.stderr)
        uid, gid = res.stdout.split()
        if IS_ROOT:
            user = pwd.getpwnam(confine.BUILD_USER)
            self.assertEqual((int(uid), int(gid)),
                             (user.pw_uid, user.pw_gid))
        else:
            self.assertEqual(int(uid), os.getuid())

    def test_reads_source_writes_only_work(self):
        res = self.run_confined(
            "cat " + str(self.src / "in.txt") + " > out.txt && "
            "if echo x > " + str(self.src / "new") + " 2>/dev/null; then "
            "echo WROTE-SOURCE; fi")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn("WROTE-SOURCE", res.stdout)
        self.assertFalse((self.src / "new").exists())
        self.assertEqual(confine.read_output(self.work, "out.txt"),
                         b"input\n")

    def test_environment_minimal(self):
        res = self.run_confined("env")
        self.assertEqual(res.returncode, 0, res.stderr)
        names = {ln.split("=", 1)[0] for ln in res.stdout.splitlines()}
        self.assertNotIn("SECRET_TOKEN", names)
        self.assertIn("EXTRA", names)
        self.assertLessEqual(names, {"PATH", "HOME", "LC_ALL", "EXTRA",
                                     "PWD", "SHLVL", "_", "OLDPWD"})

    def test_no_host_processes_no_network_no_root_home(self):
        res = self.run_confined(
            "ls /proc | grep -c '^[0-9]'; cat /proc/net/dev | wc -l; "
            "ls /root 2>&1 | head -1; ls " + str(self.tmp) + " | wc -l")
        self.assertEqual(res.returncode, 0, res.stderr)
        procs, netdev, root_home, visible = res.stdout.splitlines()
        self.assertLess(int(procs), 6)          # its own pid namespace
        self.assertEqual(int(netdev), 3)        # headers and lo only
        self.assertIn("No such file", root_home)
        self.assertEqual(int(visible), 2)       # src and work, nothing else

    def test_build_user_cannot_reach_back(self):
        # pid 1 is bubblewrap's, whose / is the sandbox's: /proc/1/root
        # leads nowhere (a plain chroot with the host's /proc reaches the
        # host's / through it).
        res = self.run_confined("head -c 5 /proc/1/cmdline; echo; "
                                "ls /proc/1/root/")
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.split()
        # bubblewrap's, or the command itself where the bench runs in a
        # chroot (confine_enter's own sandbox)
        self.assertIn(lines[0], ("bwrap", "sh\x00-c"))
        self.assertNotIn("root", lines[1:])
        self.assertNotIn("home", lines[1:])


# Enter a plain folder as / the way fresh-machine does (unshare, mounts,
# chroot), then run a confined command there.
CHROOT_RUNNER = r"""
set -e
r=$1; shift
for d in /usr /etc /dev "$PYPREFIX" "$SCRIPTS"; do
    mkdir -p "$r$d"; mount --rbind "$d" "$r$d"
done
for l in bin sbin lib lib64; do ln -s "usr/$l" "$r/$l"; done
mkdir -p "$r/tmp"
exec chroot "$r" /usr/bin/env -i PATH=/usr/bin:/bin "$@"
"""
PROBE = ("import subprocess, sys; sys.path.insert(0, {scripts!r}); "
         "from ndisbench_lib.build import confine; "
         "r = subprocess.run(confine.command(['sh', '-c', 'id -u; ls /proc "
         "| grep -c ^[0-9]; wc -l < /proc/net/dev']), capture_output=True, "
         "text=True); print(r.stdout, r.stderr)")


def _root_is_mount() -> bool:
    """Whether / is a mount point here (not so in a chroot of a plain
    folder, as fresh-machine makes)."""
    with open("/proc/self/mountinfo", encoding="utf-8") as info:
        return any(line.split()[4] == "/" for line in info)


def _in_chroot(tmp: str, python: str, probe: str
               ) -> subprocess.CompletedProcess:
    """python -c probe run in tmp entered as / the way fresh-machine
    enters its root (CHROOT_RUNNER), in a pid namespace of its own."""
    os.mkdir(f"{tmp}/proc")
    prefix = str(pathlib.Path(python).resolve().parents[1])
    return subprocess.run(
        ["unshare", "--mount", "--pid", "--fork", f"--mount-proc={tmp}/proc",
         "sh", "-c", CHROOT_RUNNER, "sh", tmp, python, "-c", probe],
        capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "PYPREFIX": prefix,
             "SCRIPTS": str(helpers.REPO / "scripts")})


@unittest.skipUnless(HAVE_BWRAP and IS_ROOT and shutil.which("unshare"),
                     "needs root, bwrap and unshare")
class ChrootRunnerTest(unittest.TestCase):
    """A bench run inside a chroot of a plain folder (fresh-machine, a
    build container): / is no mount point and a chrooted process may not
    make a user namespace, so bubblewrap cannot run; confine_enter makes
    the sandbox itself."""

    def test_confined_inside_a_chroot(self):
        if not _user_exists():
            self.skipTest(f"no user {confine.BUILD_USER}")
        if not _root_is_mount():
            # unshare cannot make / private to stage the chroot: the bench
            # runs in one already, and every module build of the test
            # command's stages takes this very path for real
            self.skipTest("already inside a chroot of a plain folder")
        with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
            scripts = str(helpers.REPO / "scripts")
            res = _in_chroot(tmp, sys.executable,
                             PROBE.format(scripts=scripts))
            self.assertEqual(res.returncode, 0, res.stderr)
            # before: "ndisbench confine: mount  on /: Invalid argument"
            self.assertNotIn("ndisbench confine:", res.stdout)
            words = res.stdout.split()
            self.assertEqual(int(words[0]),
                             pwd.getpwnam(confine.BUILD_USER).pw_uid,
                             res.stdout)
            self.assertLess(int(words[1]), 6, res.stdout)  # own pid ns
            self.assertEqual(int(words[2]), 3, res.stdout)  # lo only

    def test_chroot_build_inside_a_chroot(self):
        # A suite build (build/chroot.py) confines into the suite's own
        # root, which has another Python or none: nothing may be imported
        # after confine_enter enters it.
        if not _user_exists():
            self.skipTest(f"no user {confine.BUILD_USER}")
        if not _root_is_mount():
            self.skipTest("already inside a chroot of a plain folder")
        busybox = shutil.which("busybox")
        if busybox is None:
            self.skipTest("no busybox")
        with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
            suite = pathlib.Path(tmp, "suite")
            for name in ("bin", "proc", "dev", "tmp"):
                (suite / name).mkdir(parents=True)
            shutil.copy(busybox, suite / "bin" / "busybox")
            for applet in ("sh", "id"):
                (suite / "bin" / applet).symlink_to("busybox")
            (suite / "usr").symlink_to(".")
            scripts = str(helpers.REPO / "scripts")
            # Debian's python3 loads no `warnings` at start (-I); a Python
            # that does would hide a late import
            python = ("/usr/bin/python3" if os.path.exists("/usr/bin/python3")
                      else sys.executable)
            probe = ("import subprocess, sys, pathlib; "
                     f"sys.path.insert(0, {scripts!r}); "
                     "from ndisbench_lib.build import confine; "
                     "r = subprocess.run(confine.command(['sh', '-c', "
                     "'id -u'], root=pathlib.Path('/suite')), "
                     "capture_output=True, text=True); "
                     "print(r.stdout, r.stderr)")
            res = _in_chroot(tmp, python, probe)
            self.assertEqual(res.returncode, 0, res.stderr)
            # before: "ModuleNotFoundError: No module named 'warnings'"
            self.assertNotIn("Error", res.stdout)
            self.assertEqual(res.stdout.split()[0],
                             str(pwd.getpwnam(confine.BUILD_USER).pw_uid),
                             res.stdout)


if __name__ == "__main__":
    unittest.main()
