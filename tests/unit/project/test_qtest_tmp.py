"""The qtests run as root: no migration stream goes through a shell
(`exec:cat > path`) or a predictable name in the shared temporary folder;
streams live in a private g_dir_make_tmp folder and move through fd:."""
import re
import unittest

from helpers import REPO

QTEST_DIR = REPO / "tests" / "qtest"
SOURCES = sorted(QTEST_DIR.glob("ndisbench-*.[ch]"))


class QtestTmpTest(unittest.TestCase):
    def test_the_sources_are_there(self):
        self.assertIn(QTEST_DIR / "ndisbench-qtest.h", SOURCES)

    def test_no_exec_migration(self):
        for src in SOURCES:
            with self.subTest(src=src.name):
                self.assertNotIn("exec:", src.read_text())

    def test_no_fixed_name_in_the_temporary_folder(self):
        # g_file_open_tmp (mkstemp) and g_dir_make_tmp are unpredictable;
        # a name built from g_get_tmp_dir() and the pid is not.
        fixed = re.compile(r"g_get_tmp_dir\(\)|\"/tmp/")
        for src in SOURCES:
            with self.subTest(src=src.name):
                self.assertEqual(fixed.findall(src.read_text()), [])

    def test_streams_go_through_fd_in_a_private_folder(self):
        header = (QTEST_DIR / "ndisbench-qtest.h").read_text()
        self.assertIn("g_dir_make_tmp(", header)
        self.assertIn("'uri': 'fd:stream'", header)
        self.assertIn("qtest_qmp_fds(", header)


if __name__ == "__main__":
    unittest.main()
