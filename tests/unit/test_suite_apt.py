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
                     'Acquire::Check-Valid-Until "false";'):
            self.assertIn(line, conf.splitlines())

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

    def test_bad_suite_name(self):
        with self.assertRaises(BenchError):
            debian.suite_apt(Cache(self.root), "../etc", self.sources)


if __name__ == "__main__":
    unittest.main()
