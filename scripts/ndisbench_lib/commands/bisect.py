"""`ndisbench bisect`: the first commit of a wrapper tree's history whose
verdict differs from --good's (git bisect's "old" state) as --bad's does
(the "new" state), either way: a regression (old passes, new fails), a
fix (old fails, new passes), or a change between two kinds of failure
(does not build / builds but fails a check).

Each step exports one commit's tree (revisions.py: the user's repository
is only read) and asks a judge for its verdict: the real one runs one cell
(bisect_cell.py), the tests' reads the tree. A step that cannot be judged
(ERROR, TIMEOUT: the bench's trouble, not the tree's) is skipped, as
`git bisect skip` does. The culprit is confirmed as KernelCI confirms
one: it and its parent(s) run again and must give the new and the old
verdict again."""
import dataclasses
import json
import math
import pathlib
import shutil
import time
from typing import Callable, Dict, List, Optional, Set

from ..errors import BenchError
from ..report.verdict import ERROR
from . import revisions
from .revisions import short

PASS_WORD, FAIL_WORD, BUILD_FAIL_WORD = "pass", "FAIL", "build FAIL"
JUDGED = (PASS_WORD, FAIL_WORD, BUILD_FAIL_WORD)
OLD, NEW, SKIP = "old", "new", "skip"
# The confirmation's runs when nothing is known yet: culprit and parent.
CONFIRM_RUNS = 2
SUBJECT_MAX = 60


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One run's verdict of a tree: pass, FAIL (a check failed), build FAIL
    (the wrapper does not build), or a word saying why it could not be
    judged (ERROR, TIMEOUT)."""
    word: str
    summary: str = ""

    @property
    def judged(self) -> bool:
        return self.word in JUDGED

    @property
    def ok(self) -> bool:
        return self.word == PASS_WORD

    @property
    def text(self) -> str:
        return f"{self.word}: {self.summary}" if self.summary else self.word


# A commit's full hash and its exported tree -> its verdict.
Judge = Callable[[str, pathlib.Path], Outcome]
Tell = Callable[[str], None]


@dataclasses.dataclass
class Step:
    n: int
    rev: str
    subject: str
    role: str           # --good, --bad, bisect, confirm culprit/parent
    word: str
    summary: str
    side: str           # old, new or skip
    seconds: float


@dataclasses.dataclass
class Result:
    source: revisions.Source
    good: str
    bad: str
    old: Optional[Outcome] = None
    new: Optional[Outcome] = None
    steps: List[Step] = dataclasses.field(default_factory=list)
    culprit: Optional[str] = None
    parents: List[str] = dataclasses.field(default_factory=list)
    confirmed: bool = False
    reason: str = ""        # why there is no confirmed culprit

    @property
    def ok(self) -> bool:
        return self.culprit is not None and self.confirmed

    @property
    def term(self) -> str:
        """broke, fixed, or changed (both ends fail, differently)."""
        if self.old is None or self.new is None or \
                self.old.ok == self.new.ok:
            return "changed"
        return "fixed" if self.new.ok else "broke"

    @property
    def phrase(self) -> str:
        return "changed the verdict" if self.term == "changed" else \
            self.term

    def first_step(self, rev: str) -> Optional[Step]:
        return next((s for s in self.steps if s.rev == rev), None)

    def last_step(self, rev: str) -> Optional[Step]:
        return next((s for s in reversed(self.steps) if s.rev == rev), None)


def side(outcome: Outcome, old: Outcome, new: Outcome) -> str:
    """Which end a verdict sides with. When one end passes and the other
    does not, passing is what counts (a build FAIL and a FAIL are both
    not passing); when both fail differently, the old failure's word."""
    if not outcome.judged:
        return SKIP
    if old.ok != new.ok:
        return OLD if outcome.ok == old.ok else NEW
    return OLD if outcome.word == old.word else NEW


def check_range(repo: revisions.Repo, good: str, bad: str
                ) -> List[str]:
    """[good, bad] as full hashes; good must be an ancestor of bad."""
    old = repo.commit(good, "--good")
    new = repo.commit(bad, "--bad")
    if old == new:
        raise BenchError(f"--good and --bad are the same commit "
                         f"{short(old)}")
    if not repo.is_ancestor(old, new):
        raise BenchError(f"--good {short(old)} is not an ancestor of --bad "
                         f"{short(new)}")
    return [old, new]


class _Runner:
    """Runs and records the steps: export, judge, one progress line."""

    def __init__(self, repo: revisions.Repo, judge: Judge,
                 work: pathlib.Path, tell: Tell, result: Result) -> None:
        self.repo = repo
        self.judge = judge
        self.tree = work / "tree"
        self.tell = tell
        self.result = result
        self.left = 0           # the steps still expected after this one
        self.subjects: Dict[str, str] = {}

    def subject(self, rev: str) -> str:
        if rev not in self.subjects:
            self.subjects[rev] = self.repo.subject(rev)
        return self.subjects[rev]

    def step(self, rev: str, role: str) -> Outcome:
        start = time.monotonic()
        try:
            outcome = self.judge(rev, self.repo.export(rev, self.tree))
        except BenchError as exc:
            outcome = Outcome(ERROR, str(exc))
        res = self.result
        if res.old and res.new:
            where = side(outcome, res.old, res.new)
        elif outcome.judged:        # an end: its own side
            where = OLD if role == "--good" else NEW
        else:
            where = SKIP
        step = Step(len(res.steps) + 1, rev, self.subject(rev), role,
                    outcome.word, outcome.summary, where,
                    round(time.monotonic() - start, 1))
        res.steps.append(step)
        total = step.n + self.left
        self.tell(f"step {step.n}/{total}: {short(rev)} ({role}) "
                  f"{step.subject[:SUBJECT_MAX]}: {outcome.text}")
        return outcome


def _steps_for(possible: int) -> int:
    """Tests to single out one of `possible` commits."""
    return math.ceil(math.log2(possible)) if possible > 1 else 0


def search(source: revisions.Source, good: str, bad: str, judge: Judge,
           work: pathlib.Path, tell: Tell) -> Result:
    """Bisect good..bad (each step's tree exported under work/tree)."""
    repo = revisions.Repo(source)
    old_rev, new_rev = check_range(repo, good, bad)
    res = Result(source, old_rev, new_rev)
    run = _Runner(repo, judge, work, tell, res)
    try:
        _search(repo, run, res)
    finally:
        # The cells are done with it (their modules are cache entries).
        shutil.rmtree(run.tree, ignore_errors=True)
    return res


def _search(repo: revisions.Repo, run: _Runner, res: Result) -> None:
    """The two ends, the narrowing, the confirmation; res.reason says
    where it stopped short."""
    old_rev, new_rev = res.good, res.bad
    possible = len(repo.candidates(new_rev, [old_rev]))
    run.left = 1 + _steps_for(possible) + CONFIRM_RUNS
    old = run.step(old_rev, "--good")
    if not old.judged:
        res.reason = f"--good {short(old_rev)} could not be judged: " \
                     f"{old.text}"
        return
    run.left -= 1
    new = run.step(new_rev, "--bad")
    if not new.judged:
        res.reason = f"--bad {short(new_rev)} could not be judged: " \
                     f"{new.text}"
        return
    if old.word == new.word:
        res.reason = f"--good and --bad give the same verdict " \
                     f"({old.word}): nothing to bisect"
        return
    res.old, res.new = old, new
    culprit = _narrow(repo, run, res)
    if culprit is None:
        return
    _confirm(repo, run, res, culprit)


def _narrow(repo: revisions.Repo, run: _Runner, res: Result
            ) -> Optional[str]:
    """The first new commit, or None (res.reason says why)."""
    olds = [res.good]
    new = res.bad
    skipped: Set[str] = set()
    while True:
        cands = [c for c, _ in repo.candidates(new, olds)]
        testable = [c for c in cands if c != new and c not in skipped]
        if len(cands) <= 1:
            return new
        if not testable:
            left = " ".join(short(c) for c in repo.oldest_first(new, olds))
            res.reason = f"only skipped commits left: the first that " \
                         f"{res.phrase} is one of {left}"
            return None
        run.left = _steps_for(len(testable) + 1) - 1 + CONFIRM_RUNS
        pick = testable[0]
        assert res.old is not None and res.new is not None
        where = side(run.step(pick, "bisect"), res.old, res.new)
        if where == OLD:
            olds.append(pick)
        elif where == NEW:
            new = pick
        else:
            skipped.add(pick)


def _confirm(repo: revisions.Repo, run: _Runner, res: Result,
             culprit: str) -> None:
    """Run the culprit and its parents again: new, then old, or the
    culprit is reported unconfirmed."""
    assert res.old is not None and res.new is not None
    res.culprit = culprit
    res.parents = repo.parents(culprit)
    before = res.first_step(culprit)
    run.left = len(res.parents)
    again = run.step(culprit, "confirm culprit")
    problems = []
    if side(again, res.old, res.new) != NEW:
        problems.append(f"{short(culprit)} gave {again.word} on its re-run "
                        f"({before.word if before else res.new.word} "
                        f"before)")
    for n, parent in enumerate(res.parents):
        seen = res.first_step(parent)
        run.left = len(res.parents) - n - 1
        again = run.step(parent, "confirm parent")
        if side(again, res.old, res.new) != OLD:
            was = f"{seen.word} before" if seen else \
                f"never run before, --good gave {res.old.word}"
            problems.append(f"its parent {short(parent)} gave {again.word} "
                            f"on its re-run ({was})")
    res.confirmed = not problems
    if problems:
        res.reason = "not confirmed: " + "; ".join(problems)


def headline(res: Result) -> str:
    """The one line the command ends with."""
    if res.culprit is None:
        return f"no culprit: {res.reason}"
    first = res.first_step(res.culprit)
    word = first.word if first else "?"
    parents = ", ".join(
        f"{short(p)}: {s.word if s else '?'}"
        for p, s in ((p, res.first_step(p) or res.last_step(p))
                     for p in res.parents))
    text = (f"first commit that {res.phrase}: {short(res.culprit)} "
            f"{run_subject(res, res.culprit)}: {word} (its parent"
            f"{'s' if len(res.parents) > 1 else ''} {parents})")
    if res.confirmed:
        return text + "; confirmed: it and its parent ran again alike"
    return text + "; NOT confirmed: " + \
        res.reason.removeprefix("not confirmed: ")


def run_subject(res: Result, rev: str) -> str:
    step = res.first_step(rev)
    return step.subject if step else ""


def to_json(res: Result, context: Dict[str, object]) -> Dict[str, object]:
    data: Dict[str, object] = dict(context)
    data.update({
        "source": res.source.label, "repo": str(res.source.repo),
        "subdir": res.source.subdir, "good": res.good, "bad": res.bad,
        "old": dataclasses.asdict(res.old) if res.old else None,
        "new": dataclasses.asdict(res.new) if res.new else None,
        "term": res.term,
        "steps": [dataclasses.asdict(s) for s in res.steps],
        "culprit": {"rev": res.culprit,
                    "subject": run_subject(res, res.culprit),
                    "parents": res.parents} if res.culprit else None,
        "confirmed": res.confirmed, "ok": res.ok, "reason": res.reason,
        "headline": headline(res)})
    return data


def markdown(res: Result, context: Dict[str, object]) -> str:
    lines = [f"# bisect of {res.source.label}", "",
             headline(res), ""]
    lines += [f"- {k}: {v if not isinstance(v, list) else ', '.join(v)}"
              for k, v in context.items()]
    lines += [f"- --good {short(res.good)}: "
              f"{res.old.text if res.old else 'not judged'}",
              f"- --bad {short(res.bad)}: "
              f"{res.new.text if res.new else 'not judged'}", "",
              "| step | commit | role | verdict | side | seconds | "
              "subject | summary |",
              "|---|---|---|---|---|---|---|---|"]
    for s in res.steps:
        lines.append(f"| {s.n} | `{short(s.rev)}` | {s.role} | {s.word} | "
                     f"{s.side} | {s.seconds} | {_cell(s.subject)} | "
                     f"{_cell(s.summary)} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def write(folder: pathlib.Path, res: Result,
          context: Dict[str, object]) -> None:
    """bisect.json and bisect.md: every step, the culprit, the
    confirmation."""
    (folder / "bisect.json").write_text(
        json.dumps(to_json(res, context), indent=1) + "\n")
    (folder / "bisect.md").write_text(markdown(res, context))
