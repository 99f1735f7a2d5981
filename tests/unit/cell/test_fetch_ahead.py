"""What waits on the network is fetched ahead: while the first kernel
builds (and its cells boot), the later Debian kernels' packages and, when
a module must be built for one, its suite's chroot are made beside it."""
import pathlib
import tempfile
import threading
import unittest
from unittest import mock

from helpers import MODULE_CHECKS, roles_of
from ndisbench_lib import devices, kernels
from ndisbench_lib import cell
from ndisbench_lib.cell import plan, runner
from ndisbench_lib.errors import BenchError
from ndisbench_lib.report import report
from ndisbench_lib.report.verdict import PASS, Verdict

EXP = kernels.load_expectations()
KERNELS = {k.name: k for k in kernels.load_kernels()}


class FakeChain:
    def __init__(self, recipe):
        self.recipe = recipe
        self.made = 0

    @property
    def chroot(self):
        self.made += 1
        return object()


class FetchAheadTest(unittest.TestCase):
    def fetch(self, name, recipe, cached, wrapper_src=None):
        chain = FakeChain(recipe)
        with mock.patch.object(plan, "kernel_artifact",
                               return_value="art") as art, \
                mock.patch.object(plan.modules, "toolchain",
                                  return_value=chain), \
                mock.patch.object(plan.modules, "module_cached",
                                  return_value=cached):
            plan.fetch_ahead(KERNELS[name], None, EXP, ["ndiswrapper"],
                             wrapper_src)
        return art.call_count, chain.made

    def test_a_source_kernel_is_cpu_work_left_to_its_build(self):
        self.assertEqual(self.fetch("src-6.1", "bullseye", False), (0, 0))

    def test_a_host_suite_kernel_fetches_its_packages_only(self):
        self.assertEqual(self.fetch("debian-6.1", None, False), (1, 0))

    def test_a_chroot_only_when_a_module_must_be_built(self):
        self.assertEqual(self.fetch("debian-5.10", "bullseye", True), (1, 0))
        self.assertEqual(self.fetch("debian-5.10", "bullseye", False),
                         (1, 1))

    def test_a_users_tree_is_always_built(self):
        self.assertEqual(self.fetch("debian-5.10", "bullseye", True,
                                    pathlib.Path("/tree")), (1, 1))


class ArtifactsTest(unittest.TestCase):
    def test_one_resolution_per_kernel_for_both_threads(self):
        calls = []
        gate = threading.Event()

        def artifact(kernel, cache):
            calls.append(kernel.name)
            gate.wait(5)
            return f"art-{kernel.name}"

        arts = plan.Artifacts()
        got = []
        with mock.patch.object(plan, "kernel_artifact", artifact):
            other = threading.Thread(target=lambda: got.append(
                arts.get(KERNELS["debian-5.10"], None)))
            other.start()
            gate.set()
            got.append(arts.get(KERNELS["debian-5.10"], None))
            other.join(5)
        self.assertEqual(calls, ["debian-5.10"])
        self.assertEqual(got, ["art-debian-5.10"] * 2)

    def test_a_failure_is_not_kept(self):
        results = [BenchError("mirror gone"), "art"]

        def artifact(kernel, cache):
            r = results.pop(0)
            if isinstance(r, Exception):
                raise r
            return r

        arts = plan.Artifacts()
        with mock.patch.object(plan, "kernel_artifact", artifact):
            with self.assertRaises(BenchError):
                arts.get(KERNELS["debian-sid"], None)
            self.assertEqual(arts.get(KERNELS["debian-sid"], None), "art")


class RunnerFetchesAheadTest(unittest.TestCase):
    def test_later_kernels_fetch_while_the_first_builds(self):
        ks = [KERNELS[n] for n in ("debian-6.1", "debian-5.10",
                                   "debian-sid", "src-6.1")]
        fetched = []
        second = threading.Event()

        def fetch_ahead(kernel, *args, **kw):
            fetched.append(kernel.name)
            if kernel.name == "debian-5.10":
                second.set()
            if kernel.name == "debian-sid":
                raise BenchError("mirror gone")   # a note, not the run's end

        overlapped = []

        def prepare(kernel, *args, **kw):
            if kernel.name == "debian-6.1":       # build_order's first
                overlapped.append(second.wait(10))
            return cell.plan.Prepared(kernel)

        def run_cell(prep, plan_, *args, **kw):
            res = report.CellResult(prep.kernel.name,
                                    prep.kernel.policy.name,
                                    plan_.device.name, "x",
                                    wrapper=plan_.device.wrapper)
            res.verdicts = {"load": Verdict(PASS, "ok")}
            return res

        said = []
        matrix = runner.Matrix(ks, devices.select(["none"]), ["load"], EXP)
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(runner, "prepare", prepare), \
                mock.patch.object(runner, "fetch_ahead", fetch_ahead), \
                mock.patch.object(runner, "run_cell", run_cell), \
                mock.patch.object(runner, "host_parts",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "resolve_accel",
                                  lambda *a, **kw: "tcg"), \
                mock.patch.object(runner.report, "write",
                                  lambda *a, **kw: None), \
                mock.patch.object(runner, "say",
                                  lambda tag, text: said.append(text)):
            result = runner.run(matrix, None, pathlib.Path(tmp), 2, 10,
                                "auto")
        self.assertEqual(overlapped, [True])
        # in build order, the first kernel left to prepare()
        self.assertEqual(fetched[:2], ["debian-5.10", "debian-sid"])
        self.assertEqual(len(result.cells), 4)
        self.assertIn("fetching ahead for debian-sid stopped (mirror gone); "
                      "its own build comes back to it", said)


if __name__ == "__main__":
    unittest.main()
