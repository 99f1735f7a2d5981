"""ndisbench bisect: the search over a small synthetic history (a git
repository made here, judged by a fake cell runner that reads the exported
tree), the source's REPO[:SUBDIR], the user's repository left alone, and
how a real cell's verdicts become a step's verdict."""
import io
import json
import os
import pathlib
import subprocess
import tempfile
import unittest
import unittest.mock
from contextlib import redirect_stdout
from typing import Dict, List, Sequence

from helpers import REPO  # noqa: F401  (sets the import path)

from ndisbench_lib.commands import bisect, bisect_cell, revisions
from ndisbench_lib.commands.cli import parser
from ndisbench_lib.errors import BenchError, BuildError
from ndisbench_lib.report.verdict import (ERROR, FAIL, PASS, TIMEOUT, XFAIL,
                                          Verdict)

GIT_ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@x",
               GIT_CONFIG_NOSYSTEM="1", HOME="/nonexistent")


def git(repo: pathlib.Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env=GIT_ENV,
                          check=True, capture_output=True, text=True,
                          timeout=30).stdout.strip()


def make_history(repo: pathlib.Path, states: Sequence[str],
                 subdir: str = "") -> List[str]:
    """One commit per state: <subdir>/state holds it (a state of None
    removes the subdir at that commit); a file outside the subdir says
    something else, so a wrong export is seen."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "master")
    revs = []
    for n, state in enumerate(states):
        tree = repo / subdir if subdir else repo
        if state is None:
            for f in tree.iterdir():
                f.unlink()
            tree.rmdir()
        else:
            tree.mkdir(parents=True, exist_ok=True)
            (tree / "state").write_text(state + "\n")
            (tree / "driver.c").write_text(f"/* version {n} */\n")
        if subdir:
            (repo / "state").write_text("outside\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {n}: {state}")
        revs.append(git(repo, "rev-parse", "HEAD"))
    return revs


WORDS = {"pass": bisect.Outcome(bisect.PASS_WORD, "all passed"),
         "fail": bisect.Outcome(bisect.FAIL_WORD, "load: FAIL"),
         "broken": bisect.Outcome(bisect.BUILD_FAIL_WORD,
                                  "driver.c:3: error: oops"),
         "skip": bisect.Outcome(ERROR, "the kernel could not be had")}


class FakeCells:
    """The cell runner of the tests: the verdict written in the tree's
    `state` file; flips: revs whose later runs give this state instead."""

    def __init__(self, flips: Dict[str, str] = None) -> None:
        self.calls: List[str] = []
        self.flips = flips or {}

    def __call__(self, rev: str, tree: pathlib.Path) -> bisect.Outcome:
        again = rev in self.calls
        self.calls.append(rev)
        if again and rev in self.flips:
            return WORDS[self.flips[rev]]
        state = (tree / "state").read_text().strip()
        assert state != "outside", "the export is not the SUBDIR"
        return WORDS[state]


class Case(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = pathlib.Path(tmp.name)
        self.lines: List[str] = []

    def search(self, states, old=0, new=-1, subdir="", cells=None,
               spec=None):
        revs = make_history(self.tmp / "repo", states, subdir)
        src = revisions.parse_source(spec or (
            f"{self.tmp / 'repo'}:{subdir}" if subdir
            else str(self.tmp / "repo")))
        cells = cells or FakeCells()
        res = bisect.search(src, revs[old], revs[new], cells,
                            self.tmp / "out", self.lines.append)
        return revs, cells, res


class SearchTest(Case):
    def test_regression_is_found_and_confirmed(self) -> None:
        revs, cells, res = self.search(
            ["pass", "pass", "pass", "fail", "fail", "fail", "fail"])
        self.assertEqual(res.culprit, revs[3])
        self.assertEqual(res.parents, [revs[2]])
        self.assertEqual(res.term, "broke")
        self.assertTrue(res.confirmed)
        self.assertTrue(res.ok)
        self.assertEqual(res.old.word, "pass")
        self.assertEqual(res.new.word, "FAIL")
        # the endpoints first, the confirmation (culprit, parent) last
        self.assertEqual(cells.calls[:2], [revs[0], revs[6]])
        self.assertEqual(cells.calls[-2:], [revs[3], revs[2]])
        # the exported trees are gone once the cells are done
        self.assertEqual(list((self.tmp / "out").iterdir()), [])
        self.assertEqual([s.role for s in res.steps][-2:],
                         ["confirm culprit", "confirm parent"])
        line = bisect.headline(res)
        self.assertTrue(line.startswith(
            f"first commit that broke: {revs[3][:8]} commit 3: fail: FAIL "
            f"(its parent {revs[2][:8]}: pass)"), line)
        self.assertIn("confirmed", line)
        self.assertNotIn("not confirmed", line)

    def test_fix_is_found(self) -> None:
        revs, _, res = self.search(["broken", "broken", "pass", "pass"])
        self.assertEqual(res.culprit, revs[2])
        self.assertEqual(res.term, "fixed")
        self.assertTrue(res.ok)
        self.assertEqual((res.old.word, res.new.word),
                         ("build FAIL", "pass"))
        self.assertTrue(bisect.headline(res).startswith(
            f"first commit that fixed: {revs[2][:8]} "))

    def test_progress_is_one_line_per_step(self) -> None:
        revs, _, res = self.search(["broken"] + ["pass"] * 6)
        steps = [ln for ln in self.lines if ln.startswith("step ")]
        self.assertEqual(len(steps), len(res.steps))
        # 6 possible culprits: 3 bisect steps (estimated), the 2 ends, 2
        # confirmations; the last line's count is the real one
        self.assertTrue(steps[0].startswith(
            f"step 1/7: {revs[0][:8]} (--good) commit 0: broken: "
            f"build FAIL: driver.c:3: error: oops"), steps[0])
        self.assertTrue(steps[-1].startswith(
            f"step {len(steps)}/{len(steps)}: {revs[0][:8]} (confirm "
            f"parent) commit 0: broken: build FAIL"), steps[-1])
        self.assertEqual(res.culprit, revs[1])

    def test_unjudgeable_step_is_skipped(self) -> None:
        # the midpoint of c1..c4 is c2, unique: it is tried first
        revs, cells, res = self.search(
            ["pass", "pass", "skip", "pass", "fail"])
        self.assertEqual(cells.calls[2], revs[2])
        skipped = [s for s in res.steps if s.side == bisect.SKIP]
        self.assertEqual([s.rev for s in skipped], [revs[2]])
        self.assertEqual(skipped[0].word, ERROR)
        self.assertEqual(res.culprit, revs[4])
        self.assertTrue(res.ok)

    def test_only_skipped_commits_left(self) -> None:
        revs, _, res = self.search(["pass", "skip", "fail"])
        self.assertIsNone(res.culprit)
        self.assertFalse(res.ok)
        self.assertEqual(res.reason,
                         f"only skipped commits left: the first that broke "
                         f"is one of {revs[1][:8]} {revs[2][:8]}")

    def test_same_verdict_at_both_ends(self) -> None:
        revs, cells, res = self.search(["fail", "pass", "fail"])
        self.assertFalse(res.ok)
        self.assertIsNone(res.culprit)
        self.assertEqual(cells.calls, [revs[0], revs[2]])
        self.assertEqual(res.reason, "--good and --bad give the same "
                                     "verdict (FAIL): nothing to bisect")

    def test_unjudgeable_end(self) -> None:
        revs, cells, res = self.search(["skip", "pass", "fail"])
        self.assertFalse(res.ok)
        self.assertEqual(res.reason,
                         f"--good {revs[0][:8]} could not be judged: "
                         f"ERROR: the kernel could not be had")

    def test_two_failures_of_different_kinds_are_a_change(self) -> None:
        revs, _, res = self.search(["broken", "broken", "fail", "fail"])
        self.assertEqual(res.culprit, revs[2])
        self.assertEqual(res.term, "changed")
        self.assertTrue(bisect.headline(res).startswith(
            f"first commit that changed the verdict: {revs[2][:8]} "))

    def test_culprit_whose_rerun_flips_is_unconfirmed(self) -> None:
        history = ["pass", "pass", "fail", "fail", "fail"]
        revs = make_history(self.tmp / "repo", history)
        cells = FakeCells(flips={revs[2]: "pass"})
        res = bisect.search(revisions.parse_source(str(self.tmp / "repo")),
                            revs[0], revs[4], cells, self.tmp / "out",
                            self.lines.append)
        self.assertEqual(res.culprit, revs[2])
        self.assertFalse(res.confirmed)
        self.assertFalse(res.ok)
        self.assertEqual(res.reason,
                         f"not confirmed: {revs[2][:8]} gave pass on its "
                         f"re-run (FAIL before)")
        self.assertIn("NOT confirmed", bisect.headline(res))

    def test_parent_whose_rerun_flips_is_unconfirmed(self) -> None:
        history = ["pass", "pass", "fail", "fail", "fail"]
        revs = make_history(self.tmp / "repo", history)
        cells = FakeCells(flips={revs[1]: "fail"})
        res = bisect.search(revisions.parse_source(str(self.tmp / "repo")),
                            revs[0], revs[4], cells, self.tmp / "out",
                            self.lines.append)
        self.assertEqual(res.culprit, revs[2])
        self.assertFalse(res.ok)
        self.assertEqual(res.reason,
                         f"not confirmed: its parent {revs[1][:8]} gave "
                         f"FAIL on its re-run (pass before)")


class SubdirTest(Case):
    def test_subdir_is_the_tree_judged(self) -> None:
        revs, _, res = self.search(["broken", "broken", "pass", "pass"],
                                   subdir="pkg/ndis")
        self.assertEqual(res.culprit, revs[2])
        self.assertEqual(res.source.subdir, "pkg/ndis")

    def test_repo_folder_inside_the_work_tree_is_its_subdir(self) -> None:
        revs = make_history(self.tmp / "repo", ["broken", "pass", "pass"],
                            "pkg")
        src = revisions.parse_source(str(self.tmp / "repo" / "pkg"))
        self.assertEqual(src.subdir, "pkg")
        cells = FakeCells()
        res = bisect.search(src, revs[0], revs[2], cells, self.tmp / "out",
                            self.lines.append)
        self.assertEqual(res.culprit, revs[1])

    def test_subdir_missing_at_a_step_skips_it(self) -> None:
        revs, _, res = self.search(["pass", "pass", None, "pass", "fail"],
                                   subdir="pkg")
        skipped = [s for s in res.steps if s.side == bisect.SKIP]
        self.assertEqual([s.rev for s in skipped], [revs[2]])
        self.assertIn("pkg", skipped[0].summary)
        self.assertEqual(res.culprit, revs[4])

    def test_parse_source_errors(self) -> None:
        make_history(self.tmp / "repo", ["pass"])
        with self.assertRaisesRegex(BenchError, "not a git repository"):
            revisions.parse_source(str(self.tmp))
        with self.assertRaisesRegex(BenchError, "no such folder"):
            revisions.parse_source(str(self.tmp / "nope"))
        with self.assertRaisesRegex(BenchError, r"'\.\./x' leaves"):
            revisions.parse_source(f"{self.tmp / 'repo'}:../x")


class RevsTest(Case):
    def test_bad_revisions_are_named(self) -> None:
        revs = make_history(self.tmp / "repo", ["pass", "fail"])
        src = revisions.parse_source(str(self.tmp / "repo"))
        with self.assertRaisesRegex(BenchError, "--good nosuch: not a "
                                                "commit of"):
            bisect.search(src, "nosuch", revs[1], FakeCells(),
                          self.tmp / "out", self.lines.append)
        with self.assertRaisesRegex(BenchError, f"--good {revs[1][:8]} is "
                                                f"not an ancestor of --bad"):
            bisect.search(src, revs[1], revs[0], FakeCells(),
                          self.tmp / "out", self.lines.append)


class UntouchedTest(Case):
    def test_user_repo_head_and_work_tree_unchanged(self) -> None:
        repo = self.tmp / "repo"
        revs = make_history(repo, ["pass", "pass", "fail", "fail"])
        # the user's own state: a branch checked out, an edit, a new file
        (repo / "driver.c").write_text("/* my edit */\n")
        (repo / "notes.txt").write_text("mine\n")
        git(repo, "checkout", "-q", "-b", "work")
        before = (git(repo, "rev-parse", "HEAD"),
                  git(repo, "symbolic-ref", "HEAD"),
                  git(repo, "status", "--porcelain"),
                  git(repo, "for-each-ref"),
                  sorted(p.name for p in (repo / ".git").iterdir()))
        res = bisect.search(revisions.parse_source(str(repo)), revs[0],
                            revs[3], FakeCells(), self.tmp / "out",
                            self.lines.append)
        self.assertEqual(res.culprit, revs[2])
        after = (git(repo, "rev-parse", "HEAD"),
                 git(repo, "symbolic-ref", "HEAD"),
                 git(repo, "status", "--porcelain"),
                 git(repo, "for-each-ref"),
                 sorted(p.name for p in (repo / ".git").iterdir()))
        self.assertEqual(before, after)
        self.assertEqual((repo / "driver.c").read_text(), "/* my edit */\n")
        self.assertFalse((repo / ".git" / "BISECT_LOG").exists())


class WriteTest(Case):
    def test_json_and_markdown(self) -> None:
        revs, _, res = self.search(["pass", "pass", "fail", "fail"])
        folder = self.tmp / "out" / "bisect-x"
        folder.mkdir(parents=True)
        bisect.write(folder, res, {"kernel": "debian-6.1",
                                   "device": "none", "checks": ["build"]})
        data = json.loads((folder / "bisect.json").read_text())
        self.assertEqual(data["culprit"]["rev"], revs[2])
        self.assertEqual(data["culprit"]["parents"], [revs[1]])
        self.assertTrue(data["confirmed"])
        self.assertEqual(data["term"], "broke")
        self.assertEqual(data["kernel"], "debian-6.1")
        self.assertEqual(len(data["steps"]), len(res.steps))
        self.assertEqual(data["steps"][0]["role"], "--good")
        self.assertEqual(data["steps"][0]["word"], "pass")
        md = (folder / "bisect.md").read_text()
        self.assertIn(bisect.headline(res), md)
        self.assertIn(f"| 1 | `{revs[0][:8]}` |", md)
        self.assertIn("confirm parent", md)


class CellOutcomeTest(unittest.TestCase):
    """A real cell's verdicts (and its build) as one step's verdict."""

    def test_all_ok_is_pass(self) -> None:
        out = bisect_cell.outcome_of(
            {"build": Verdict(PASS, "built ndiswrapper.ko"),
             "taint": Verdict(XFAIL, "reproduced")}, ["build", "taint"])
        self.assertEqual(out.word, bisect.PASS_WORD)

    def test_a_failing_check_is_fail_naming_it(self) -> None:
        out = bisect_cell.outcome_of(
            {"build": Verdict(PASS, "built"),
             "load": Verdict(FAIL, "insmod: ENOEXEC"),
             "unload": Verdict(ERROR, "no result")},
            ["build", "load", "unload"])
        self.assertEqual(out, bisect.Outcome("FAIL", "load: insmod: ENOEXEC"))

    def test_only_the_selected_checks_count(self) -> None:
        out = bisect_cell.outcome_of(
            {"build": Verdict(PASS, "built"),
             "load": Verdict(FAIL, "insmod: ENOEXEC")}, ["build"])
        self.assertEqual(out.word, bisect.PASS_WORD)

    def test_error_or_timeout_cannot_be_judged(self) -> None:
        out = bisect_cell.outcome_of(
            {"load": Verdict(TIMEOUT, "guest killed after 2m00s")},
            ["load"])
        self.assertEqual(out, bisect.Outcome(TIMEOUT, "load: guest killed "
                                                      "after 2m00s"))
        self.assertFalse(out.judged)
        out = bisect_cell.outcome_of({}, ["load"])
        self.assertEqual(out, bisect.Outcome(ERROR, "load: no verdict"))

    def test_an_unknown_status_is_not_a_pass(self) -> None:
        out = bisect_cell.outcome_of({"load": Verdict("weird", "?")},
                                     ["load"])
        self.assertEqual(out, bisect.Outcome(ERROR, "load: weird: ?"))

    def test_build_failure_is_a_verdict(self) -> None:
        exc = BuildError("--wrapper-src /t: kernel 'debian-6.1': build "
                         "external:driver", pathlib.Path("/log"), 2,
                         ["ntoskernel.c:12:9: error: too many arguments"])
        out = bisect_cell.build_outcome(exc)
        self.assertEqual(out, bisect.Outcome(
            "build FAIL", "ntoskernel.c:12:9: error: too many arguments "
                          "(log: /log)"))
        self.assertTrue(out.judged)
        self.assertFalse(out.ok)


class CellJudgeTest(unittest.TestCase):
    """The real judge's choices, its builds replaced: which row, which
    checks, and a step that needs no guest."""

    def setUp(self) -> None:
        from ndisbench_lib import kernels
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tree = pathlib.Path(tmp.name) / "tree"
        for f in ("driver/Makefile", "utils/Makefile"):
            (self.tree / f).parent.mkdir(parents=True, exist_ok=True)
            (self.tree / f).write_text("all:\n")
        self.exp = kernels.load_expectations()
        self.kernel = kernels.select(kernels.load_kernels(exp=self.exp),
                                     ["debian-6.1"])[0]
        self.roles: List[List[str]] = []

    def judge(self, checks, failed=None, error=None, runs=1,
              run_plan=None):
        """The judge's verdicts of `runs` steps, and the mock that stood
        for run_plan."""
        from ndisbench_lib.build.kbuild import KernelArtifact
        from ndisbench_lib.cell.plan import Prepared
        device = bisect_cell.pick_device("none")
        judge = bisect_cell.CellJudge(
            self.kernel, device, bisect_cell.cell_checks(device, checks),
            checks, self.exp, None, self.tree.parent, 60, "tcg", "icount",
            True)
        art = unittest.mock.Mock(spec=KernelArtifact,
                                 release="6.1.0-57-amd64")

        def prepare(kernel, cache, exp, roles, tree, extras):
            self.roles.append(list(roles))
            self.assertEqual(tree, self.tree)
            return Prepared(kernel, art, failed=failed or {}, error=error)

        boot = unittest.mock.Mock(side_effect=run_plan)
        with unittest.mock.patch.object(bisect_cell, "prepare", prepare), \
                unittest.mock.patch.object(bisect_cell, "run_plan", boot):
            outs = [judge("a" * 40, self.tree) for _ in range(runs)]
        return (outs[0] if runs == 1 else outs), boot

    def test_build_only_needs_no_guest(self) -> None:
        out, boot = self.judge(["build"])
        self.assertEqual(out, bisect.Outcome(
            "pass", "built ndiswrapper.ko for 6.1.0-57-amd64"))
        self.assertEqual(self.roles, [["ndiswrapper"]])
        boot.assert_not_called()

    def test_wrapper_that_does_not_build(self) -> None:
        exc = BuildError("build", pathlib.Path("/log"), 2,
                         ["loader.c:157:25: error: too many arguments"])
        out, boot = self.judge(["build"], failed={"ndiswrapper": exc})
        self.assertEqual(out.word, "build FAIL")
        self.assertEqual(out.summary, "loader.c:157:25: error: too many "
                                      "arguments (log: /log)")
        boot.assert_not_called()

    def test_kernel_not_had_is_unjudged(self) -> None:
        out, _ = self.judge(["build"], error=BenchError("no headers"))
        self.assertEqual(out, bisect.Outcome(ERROR, "no headers"))

    def test_tree_without_the_classic_layout_is_unjudged(self) -> None:
        (self.tree / "utils" / "Makefile").unlink()
        out, _ = self.judge(["build"])
        self.assertEqual(out.word, ERROR)
        self.assertIn("no utils/Makefile", out.summary)
        self.assertEqual(self.roles, [])

    def test_guest_step_runs_a_cell_of_the_tree(self) -> None:
        from ndisbench_lib.cell.run import CellRun
        from ndisbench_lib.report.report import CellResult
        plans = []

        def run_plan(plan, prep, parts):
            plans.append(plan)
            cell = CellResult("debian-6.1", "2.6.25-rc4", "none", "x")
            cell.verdicts = {"build": Verdict(PASS, "built"),
                             "load": Verdict(FAIL, "insmod: ENOEXEC")}
            return CellRun(cell)

        with unittest.mock.patch.object(bisect_cell, "host_parts") as parts, \
                unittest.mock.patch.object(bisect_cell, "resolve_accel",
                                           return_value="tcg") as accel, \
                unittest.mock.patch.object(bisect_cell.report, "cell_lines",
                                           return_value=[]):
            outs, _ = self.judge(["load"], runs=2, run_plan=run_plan)
        # no fixture on `none`: the host's parts and accel looked up once
        self.assertEqual((parts.call_count, accel.call_count), (1, 1))
        self.assertEqual(outs[0], bisect.Outcome("FAIL", "load: insmod: "
                                                         "ENOEXEC"))
        self.assertEqual(len(plans), 2)
        self.assertEqual(plans[0].wrapper_src, self.tree)
        self.assertEqual(plans[0].checks, ("build", "load"))
        self.assertTrue(plans[0].snapshot)
        self.assertEqual([p.folder.name for p in plans],
                         ["01-aaaaaaaa", "02-aaaaaaaa"])
        self.assertIn("ndiswrapper", self.roles[0])

    def test_device_and_checks(self) -> None:
        self.assertEqual(bisect_cell.pick_device("bcm43xx").label,
                         "bcm43xx/ndiswrapper")
        self.assertEqual(bisect_cell.pick_device("none").label, "none")
        with self.assertRaisesRegex(BenchError, "unknown device"):
            bisect_cell.pick_device("nosuch")
        none = bisect_cell.pick_device("none")
        self.assertEqual(bisect_cell.cell_checks(none, ["build"]),
                         ["build"])
        self.assertIn("build", bisect_cell.cell_checks(none, None))
        self.assertIn("load", bisect_cell.cell_checks(none, None))
        with self.assertRaisesRegex(BenchError, "--check tcp: not run on "
                                                "none"):
            bisect_cell.cell_checks(none, ["tcp"])


class CliTest(unittest.TestCase):
    def test_bisect_arguments(self) -> None:
        args = parser().parse_args(
            ["bisect", "--wrapper-src", "/r:sub", "--good", "a1",
             "--bad", "b2", "--kernel", "debian-6.1", "--device", "none",
             "--check", "build"])
        self.assertEqual((args.wrapper_src, args.good, args.bad,
                          args.kernel, args.device, args.check),
                         ("/r:sub", "a1", "b2", "debian-6.1", "none",
                          ["build"]))
        self.assertIs(args.func.__name__, "cmd_bisect")

    def test_needs_good_and_bad(self) -> None:
        with redirect_stdout(io.StringIO()), \
                unittest.mock.patch("sys.stderr", io.StringIO()), \
                self.assertRaises(SystemExit):
            parser().parse_args(["bisect", "--wrapper-src", "/r",
                                 "--kernel", "debian-6.1"])


if __name__ == "__main__":
    unittest.main()
