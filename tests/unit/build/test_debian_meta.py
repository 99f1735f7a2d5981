"""kernels.toml's image/headers: a metapackage followed to the versioned
package it depends on, or a versioned package named directly (a build the
metapackage no longer points at: bullseye's 686-pae 5.10.0-32, whose
security update the mirror does not serve for i386)."""
import unittest
from unittest import mock

import helpers  # noqa: F401  (import path)
from ndisbench_lib.build import debian
from ndisbench_lib.errors import BenchError

PACKAGES = {
    "linux-image-686-pae": debian.Package(
        "linux-image-686-pae", "5.10.262-1",
        ["linux-image-5.10.0-46-686-pae"]),
    "linux-image-5.10.0-46-686-pae": debian.Package(
        "linux-image-5.10.0-46-686-pae", "5.10.262-1", ["kmod"]),
    "linux-image-5.10.0-32-686-pae": debian.Package(
        "linux-image-5.10.0-32-686-pae", "5.10.223-1",
        ["kmod", "linux-base"]),
    "linux-image-empty": debian.Package("linux-image-empty", "1", ["kmod"]),
    "linux-image-6.12-amd64": debian.Package(
        "linux-image-6.12-amd64", "6.12.118-1~deb12u1",
        ["linux-image-6.12.118+deb12-amd64"]),
    "linux-image-6.12.118+deb12-amd64": debian.Package(
        "linux-image-6.12.118+deb12-amd64", "6.12.118-1~deb12u1", ["kmod"]),
}


def fake_show(name, who, env=None):
    return PACKAGES[name]


@mock.patch.object(debian, "show", fake_show)
class ResolveMetaTest(unittest.TestCase):
    def test_a_metapackage_is_followed(self):
        pkg = debian.resolve_meta("linux-image-686-pae", "linux-image-", "k")
        self.assertEqual(pkg.name, "linux-image-5.10.0-46-686-pae")

    def test_a_versioned_package_is_taken_as_named(self):
        pkg = debian.resolve_meta("linux-image-5.10.0-32-686-pae",
                                  "linux-image-", "k")
        self.assertEqual((pkg.name, pkg.version),
                         ("linux-image-5.10.0-32-686-pae", "5.10.223-1"))

    def test_a_series_metapackage_is_followed(self):
        # linux-image-6.12-amd64 names a series (major.minor), not a build:
        # bookworm's 6.12 metapackage, which the CI of 26c8db2 took as named
        # and then looked for a '-unsigned' twin that does not exist.
        pkg = debian.resolve_meta("linux-image-6.12-amd64", "linux-image-",
                                  "k")
        self.assertEqual(pkg.name, "linux-image-6.12.118+deb12-amd64")

    def test_a_metapackage_without_the_dependency_is_an_error(self):
        with self.assertRaisesRegex(BenchError, "linux-image-empty"):
            debian.resolve_meta("linux-image-empty", "linux-image-", "k")


if __name__ == "__main__":
    unittest.main()
