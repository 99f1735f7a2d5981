"""build/debian.py's private apt configuration for another Debian suite:
the mirror comes from the host's deb822 sources, nothing of the host's
apt state is used, and apt-get update runs only when the lists are
missing, stale or for other sources."""
import os
import pathlib
import tempfile
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib.build import debian
from ndisbench_lib.build.cache import Cache
from ndisbench_lib.errors import BenchError

HOST = """Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


class SuiteAptTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.sources = self.root / "debian.sources"
        self.sources.write_text(HOST)

    def tearDown(self):
        self.tmp.cleanup()

    def test_mirror_from_host_sources(self):
        m = debian.host_mirror(self.sources)
        self.assertEqual(m.archive, "http://mirror.example/debian")
        self.assertEqual(m.security, "http://mirror.example/debian-security")
        self.assertEqual(m.components, ("main", "contrib"))

    def test_sources_of_a_suite(self):
        text = debian.suite_sources(debian.host_mirror(self.sources),
                                    "bullseye")
        self.assertEqual(text.splitlines(), [
            "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
            " http://mirror.example/debian bullseye main contrib",
            "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
            " http://mirror.example/debian-security bullseye-security main "
            "contrib"])
        sid = debian.suite_sources(debian.host_mirror(self.sources), "sid")
        self.assertEqual(len(sid.splitlines()), 1)

    def test_backports_come_with_their_base_suite_and_pin(self):
        """trixie-backports alone cannot install (gcc is in trixie): its
        base suite and security archive come too, and the backports are
        pinned level with them so the metapackages resolve to the
        backported kernel."""
        text = debian.suite_sources(debian.host_mirror(self.sources),
                                    "trixie-backports")
        self.assertEqual([l.split("] ")[1] for l in text.splitlines()], [
            "http://mirror.example/debian trixie-backports main contrib",
            "http://mirror.example/debian trixie main contrib",
            "http://mirror.example/debian-security trixie-security main "
            "contrib"])
        self.assertIn("Pin: release n=trixie-backports",
                      debian.suite_preferences("trixie-backports"))
        self.assertEqual(debian.suite_preferences("trixie"), "")

    def test_preferences_written(self):
        cache = Cache(self.root)
        with mock.patch.object(debian, "capture", return_value=""):
            env = debian.suite_apt(cache, "trixie-backports", self.sources)
        prefs = pathlib.Path(env["APT_CONFIG"]).parent / "preferences"
        self.assertIn("Pin-Priority: 500", prefs.read_text())

    def test_any_sources_file_and_one_line_lists(self):
        """A bare mmdebstrap root names its file 0000main.sources, an
        older install has a one-line sources.list: both are the host's."""
        etc = self.root / "etc-apt"
        (etc / "sources.list.d").mkdir(parents=True)
        (etc / "sources.list.d" / "0000main.sources").write_text(HOST)
        m = debian.host_mirror(None, etc)
        self.assertEqual((m.archive, m.security),
                         ("http://mirror.example/debian",
                          "http://mirror.example/debian-security"))
        (etc / "sources.list.d" / "0000main.sources").unlink()
        (etc / "sources.list").write_text(
            "# old style\n"
            "deb [arch=amd64 signed-by=/etc/k.gpg] http://m.example/debian "
            "bookworm main non-free\n"
            "deb-src http://m.example/debian bookworm main\n"
            "deb http://m.example/debian-security bookworm-security main\n")
        m = debian.host_mirror(None, etc)
        self.assertEqual((m.archive, m.security, m.components, m.signed_by),
                         ("http://m.example/debian",
                          "http://m.example/debian-security",
                          ("main", "non-free"), "/etc/k.gpg"))
        (etc / "sources.list").unlink()
        with self.assertRaises(BenchError) as ctx:
            debian.host_mirror(None, etc)
        self.assertIn("no Debian `deb` entry", str(ctx.exception))

    def test_no_deb_stanza(self):
        self.sources.write_text("Types: deb-src\nURIs: http://x/\n"
                                "Suites: bookworm\n")
        with self.assertRaises(BenchError) as ctx:
            debian.host_mirror(self.sources)
        self.assertIn("no Debian `deb` entry", str(ctx.exception))

    def test_config_keeps_host_state_out(self):
        conf = debian.suite_apt_config(self.root, self.root / "s.list")
        for line in ('Dir::State::status "%s/status";' % self.root,
                     'Dir::Etc::sourceparts "%s/sources.list.d";'
                     % self.root,
                     'Dir::State::Lists "%s/lists";' % self.root,
                     'Dir::Cache "%s/cache";' % self.root,
                     'APT::Architecture "amd64";',
                     'Acquire::Check-Valid-Until "false";',
                     'Acquire::Retries "3";'):
            self.assertIn(line, conf.splitlines())

    def test_config_of_another_architecture(self):
        conf = debian.suite_apt_config(self.root, self.root / "s.list",
                                       "i386").splitlines()
        self.assertIn('APT::Architecture "i386";', conf)
        self.assertIn('APT::Architectures { "i386"; };', conf)
        self.assertNotIn('APT::Architecture "amd64";', conf)
        with self.assertRaises(BenchError):
            debian.suite_apt_config(self.root, self.root / "s.list", "arm64")

    def test_update_only_when_needed(self):
        calls = []

        def fake_capture(cmd, timeout=0, what="", env=None):
            calls.append((cmd, env))
            lists = self.root / "apt" / "bullseye" / "lists"
            (lists / "x_dists_bullseye_main_binary-amd64_Packages.lz4"
             ).write_text("")
            return ""

        cache = Cache(self.root)
        with mock.patch.object(debian, "capture", fake_capture):
            env = debian.suite_apt(cache, "bullseye", self.sources)
            self.assertEqual(len(calls), 1)
            self.assertEqual(calls[0][0][:2], ["apt-get", "update"])
            self.assertEqual(calls[0][1], env)
            conf = pathlib.Path(env["APT_CONFIG"])
            self.assertTrue(conf.is_file())
            self.assertEqual((conf.parent / "status").read_text(), "")
            debian.suite_apt(cache, "bullseye", self.sources)
            self.assertEqual(len(calls), 1, "fresh lists: no update")
            stamp = conf.parent / "updated"
            old = stamp.stat().st_mtime - debian.LISTS_MAX_AGE - 60
            os.utime(stamp, (old, old))
            debian.suite_apt(cache, "bullseye", self.sources)
            self.assertEqual(len(calls), 2, "stale lists: update")
            self.sources.write_text(HOST.replace("mirror.example",
                                                 "other.example"))
            debian.suite_apt(cache, "bullseye", self.sources)
            self.assertEqual(len(calls), 3, "other mirror: update")

    def test_failed_refresh_keeps_old_lists(self):
        cache = Cache(self.root)
        with mock.patch.object(debian, "capture", return_value=""):
            env = debian.suite_apt(cache, "bullseye", self.sources)
        lists = pathlib.Path(env["APT_CONFIG"]).parent / "lists"
        (lists / "x_Packages").write_text("")
        stamp = lists.parent / "updated"
        old = stamp.stat().st_mtime - debian.LISTS_MAX_AGE - 60
        os.utime(stamp, (old, old))
        with mock.patch.object(debian, "capture",
                               side_effect=BenchError("offline")):
            self.assertEqual(debian.suite_apt(cache, "bullseye",
                                              self.sources), env)

    def test_partial_update_goes_on_with_what_it_fetched(self):
        """A mirror that serves one index out of step with its Release
        (bookworm-security i386 on 2026-12-06: "File has unexpected
        size") fails `apt-get update` but leaves the other indexes: the
        first update of a suite goes on with them, saying so."""
        def partial(cmd, timeout=0, what="", env=None):
            lists = self.root / "apt" / "bookworm-i386" / "lists"
            (lists / "m_dists_bookworm_main_binary-i386_Packages"
             ).write_text("")
            raise BenchError("apt-get update for bookworm-i386: E: Some "
                             "index files failed to download.")
        said = []
        cache = Cache(self.root)
        with mock.patch.object(debian, "capture", partial), \
                mock.patch.object(debian, "say",
                                  lambda stage, text: said.append(text)):
            env = debian.suite_apt(cache, "bookworm", self.sources, "i386")
        self.assertTrue(env["APT_CONFIG"].endswith("bookworm-i386/apt.conf"))
        self.assertEqual(len(said), 1)
        self.assertIn("Some index files failed", said[0])
        self.assertIn("the indexes it fetched", said[0])
        self.assertNotIn("inf", said[0])
        self.assertFalse((self.root / "apt" / "bookworm-i386" / "updated"
                          ).exists(), "the next run tries again")
        said.clear()
        with mock.patch.object(debian, "capture", partial), \
                mock.patch.object(debian, "say",
                                  lambda stage, text: said.append(text)):
            debian.suite_apt(cache, "bookworm", self.sources, "i386")
        self.assertEqual(len(said), 1, "tried again")
        self.assertIn("the indexes it fetched", said[0])

    def test_update_that_fetched_nothing(self):
        cache = Cache(self.root)
        with mock.patch.object(debian, "capture",
                               side_effect=BenchError("offline")):
            with self.assertRaises(BenchError) as ctx:
                debian.suite_apt(cache, "bullseye", self.sources)
        self.assertEqual(str(ctx.exception), "offline")

    def test_bad_suite_name(self):
        with self.assertRaises(BenchError):
            debian.suite_apt(Cache(self.root), "../etc", self.sources)



class OtherArchitectureTest(unittest.TestCase):
    """An i386 guest's Debian kernel: its packages through an i386 apt
    configuration of the host's suite, its kbuild tools the host's."""

    def test_host_suite(self):
        with tempfile.NamedTemporaryFile("w") as f:
            f.write('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'
                    'VERSION_CODENAME=bookworm\n')
            f.flush()
            self.assertEqual(debian.host_suite(pathlib.Path(f.name)),
                             "bookworm")
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("ID=debian\n")
            f.flush()
            with self.assertRaises(BenchError) as ctx:
                debian.host_suite(pathlib.Path(f.name))
            self.assertIn("VERSION_CODENAME", str(ctx.exception))

    def test_i386_lists_live_apart(self):
        with tempfile.TemporaryDirectory() as tmp:
            cache = Cache(pathlib.Path(tmp))
            sources = pathlib.Path(tmp) / "debian.sources"
            sources.write_text(HOST)
            with mock.patch.object(debian, "capture") as cap:
                env = debian.suite_apt(cache, "bookworm", sources, "i386")
            self.assertTrue(env["APT_CONFIG"].endswith(
                "apt/bookworm-i386/apt.conf"))
            self.assertIn('APT::Architecture "i386";',
                          pathlib.Path(env["APT_CONFIG"]).read_text())
            self.assertEqual(cap.call_count, 1)
            with self.assertRaises(BenchError):
                debian.suite_apt(cache, "bookworm", sources, "sparc")

    def test_kbuild_tools_of_the_host(self):
        """The host architecture's kbuild of exactly the headers' version,
        not its newest: the i386 lists may lag the amd64 ones (an i386
        security index the mirror could not serve)."""
        from ndisbench_lib import kernels
        from ndisbench_lib.build import kbuild
        k = {x.name: x for x in kernels.load_kernels()}["debian-6.1-686"]
        headers = [debian.Package("linux-headers-6.1.0-57-686-pae", "1",
                                  [], "i386"),
                   debian.Package("linux-kbuild-6.1", "1", [], "i386")]
        with mock.patch.object(debian, "show", return_value=debian.Package(
                "linux-kbuild-6.1", "1", [], "amd64")):
            out = kbuild.host_kbuild(headers, k, mock.Mock())
        self.assertEqual([(p.name, p.arch) for p in out],
                         [("linux-headers-6.1.0-57-686-pae", "i386"),
                          ("linux-kbuild-6.1", "amd64")])
        with mock.patch.object(debian, "show", side_effect=BenchError(
                "not found")) as show:
            with self.assertRaises(BenchError) as ctx:
                kbuild.host_kbuild(headers, k, mock.Mock())
        self.assertIn("linux-kbuild-6.1 1 for amd64", str(ctx.exception))
        self.assertIn("must match", str(ctx.exception))
        self.assertEqual(show.call_args.kwargs.get("version"), "1")
        amd64 = {x.name: x for x in kernels.load_kernels()}["debian-6.1"]
        self.assertIs(kbuild.host_kbuild(headers, amd64, mock.Mock()),
                      headers)


if __name__ == "__main__":
    unittest.main()
