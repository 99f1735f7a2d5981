"""`ndisbench fuzz`: coverage-guided fuzzing of every target for its share
of a time budget, with one printed seed.

Targets:
- the host-side libFuzzer targets of tests/fuzz/ (build-fuzz/, clang),
  found in the meson build's introspection: every executable compiled
  with -fsanitize=fuzzer; its smoke test's arguments (tests/fuzz/
  meson.build) give its corpus folder and its own flags (-dict=,
  -max_len=, ...);
- QEMU's generic-fuzz on our device models (build/qemu_fuzz.py: the
  fuzzing QEMU and its configs);
- the Python targets of tests/fuzz/pytargets.py (the host's .inf reading,
  KTAP to verdicts, the report renderers, kernel-tree metadata, QMP
  replies), run by tests/fuzz/pyfuzz.py, which takes libFuzzer's flags and
  prints its status lines: `cov:` there counts lines of
  scripts/ndisbench_lib run (sampled), `ft:` outcome classes.

Each target fuzzes a scratch copy of its checked-in corpus (tests/fuzz/
corpus/<name>/ where there is one) and of its regression inputs (tests/
fuzz/regress/<name>/: inputs that once found a bug, kept apart from the
seeds a generator writes) for its share of the time; crash,
leak, timeout and out-of-memory inputs and the target's output stay in
out/fuzz-<stamp>/<target>/. The run writes fuzz.json and fuzz.md there
and fails (exit 1) if any target found anything. --replay runs each
input of those folders once (libFuzzer's -runs=0) instead of fuzzing: a
regression test of seconds.
"""
import dataclasses
import datetime
import json
import os
import pathlib
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Dict, List, Mapping, Optional, Sequence

from .. import devices, paths
from ..build import hostbuild, qemu_fuzz
from ..build.cache import Cache
from ..errors import BenchError
from ..progress import Step, fmt_secs, say
from ..proc import run_logged

CORPUS = paths.REPO / "tests" / "fuzz" / "corpus"
# QEMU's generic-fuzz on each of our models (devices.MODELS).
QEMU_CONFIGS = tuple(qemu_fuzz.generic_config(s.name, s.args, s.objects,
                                              s.usb)
                     for s in devices.fuzz_setups())
REGRESS = paths.REPO / "tests" / "fuzz" / "regress"
PYFUZZ = paths.REPO / "tests" / "fuzz" / "pyfuzz.py"
# Python targets: a 1 GiB address space (RLIMIT_AS in pyfuzz.py), 5 s per
# input, inputs up to 64 KiB (the .inf parser's quadratic blow-up showed
# at 82 KB; its caps are the bench's own).
PY_FLAGS = ["-rss_limit_mb=1024", "-timeout=5", "-max_len=65536"]
DEFAULT_MINUTES = 10.0
HEARTBEAT_SECS = 30.0
# Past its -max_total_time a target gets this long to stop (QEMU's
# initialisation and libFuzzer's final merge come on top), then is killed.
GRACE_SECS = 120.0
MIN_SECS = 5
# Flags of a smoke test that belong to the smoke run, not to the target.
RUN_FLAGS = ("-runs=", "-seed=", "-max_total_time=", "-artifact_prefix=",
             "-print_final_stats=")
# What libFuzzer leaves for an input that failed (-artifact_prefix).
ARTIFACT_KINDS = ("crash-", "leak-", "timeout-", "oom-")
# Reports that count as findings even when no input was written: the
# QEMU fuzzer runs each input in a forked child, and a child's crash does
# not end the parent.
REPORT_RE = re.compile(
    r"(==\d+==ERROR: \w+Sanitizer|runtime error: |"
    r"SUMMARY: \w+Sanitizer|==\d+== ERROR: libFuzzer|"
    r"^Assertion .* failed|\*\*\* stack smashing detected)", re.M)
# libFuzzer's status lines: "#12345  NEW    cov: 213 ft: 505 corp: 224/10Kb
# lim: 4096 exec/s: 7214 rss: 45Mb ..."
STATUS_RE = re.compile(r"^#(\d+)\s+(\w+)\s+(.*)$")
FIELD_RE = re.compile(r"\b(cov|ft|exec/s|rss): (\d+)")
CORP_RE = re.compile(r"\bcorp: (\d+)/")
STAT_RE = re.compile(r"^stat::(\w+):\s*(\d+)\s*$")
COUNTERS_RE = re.compile(r"^INFO: Loaded \d+ modules?\s+\((\d+) inline "
                         r"8-bit counters\)")
# -print_coverage=1: one line per instrumented function at the end.
FUNC_RE = re.compile(r"^(?:UN)?COVERED_FUNC: hits: \d+ edges: (\d+)/(\d+) "
                     r"\S+ (\S+?):\d+\s*$")


@dataclasses.dataclass
class Target:
    """One thing to fuzz: its argv before the libFuzzer flags, its
    environment, flags and checked-in corpus (None: starts empty)."""
    name: str
    kind: str                       # "host", "python" or "qemu"
    argv: List[str]
    flags: List[str] = dataclasses.field(default_factory=list)
    corpus: Optional[pathlib.Path] = None
    env: Dict[str, str] = dataclasses.field(default_factory=dict)
    regress: Optional[pathlib.Path] = None  # inputs that once found a bug


@dataclasses.dataclass
class Stats:
    """What libFuzzer printed about one run."""
    execs: Optional[int] = None
    exec_per_sec: Optional[int] = None
    cov: Optional[int] = None           # edges covered
    ft: Optional[int] = None            # features
    counters: Optional[int] = None      # instrumented edges in all
    corpus: Optional[int] = None        # inputs in the corpus at the end
    new_units: Optional[int] = None
    peak_rss_mb: Optional[int] = None
    reports: List[str] = dataclasses.field(default_factory=list)
    # file of our device models -> [edges covered, edges in all]
    models: Dict[str, List[int]] = dataclasses.field(default_factory=dict)
    done: bool = False                  # the DONE line: it ran to the end


def parse_output(text: str) -> Stats:
    """libFuzzer's figures from its output: the last status line's cov,
    ft, corp and exec/s, -print_final_stats=1's stat:: lines (preferred
    for executions and their rate), the instrumented counters, and the
    first line of each sanitizer or libFuzzer report."""
    st = Stats()
    for line in text.splitlines():
        line = line.rstrip()
        status = STATUS_RE.match(line)
        if status:
            fields = dict(FIELD_RE.findall(status.group(3)))
            if "cov" in fields:
                st.cov = int(fields["cov"])
            if "ft" in fields:
                st.ft = int(fields["ft"])
            if "exec/s" in fields:
                st.exec_per_sec = int(fields["exec/s"])
            if "rss" in fields:
                st.peak_rss_mb = max(st.peak_rss_mb or 0, int(fields["rss"]))
            corp = CORP_RE.search(status.group(3))
            if corp:
                st.corpus = int(corp.group(1))
            st.execs = int(status.group(1))
            st.done = st.done or status.group(2) == "DONE"
            continue
        stat = STAT_RE.match(line)
        if stat:
            key, value = stat.group(1), int(stat.group(2))
            if key == "number_of_executed_units":
                st.execs = value
            elif key == "average_exec_per_sec":
                st.exec_per_sec = value
            elif key == "new_units_added":
                st.new_units = value
            elif key == "peak_rss_mb":
                st.peak_rss_mb = value
            continue
        counters = COUNTERS_RE.match(line)
        if counters:
            st.counters = int(counters.group(1))
            continue
        func = FUNC_RE.match(line)
        if func:
            if qemu_fuzz.MODEL_DIR in func.group(3):
                name = func.group(3).rsplit("/", 1)[-1]
                edges = st.models.setdefault(name, [0, 0])
                edges[0] += int(func.group(1))
                edges[1] += int(func.group(2))
            continue
        if REPORT_RE.search(line) and len(st.reports) < 20:
            st.reports.append(line.strip()[:300])
    return st


def artifacts(folder: pathlib.Path) -> List[pathlib.Path]:
    """The inputs libFuzzer kept for failures in folder."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.name.startswith(ARTIFACT_KINDS))


def _load(path: pathlib.Path) -> list:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BenchError(f"fuzz: {path}: unreadable meson introspection "
                         f"({exc}); remove {path.parents[1]} and retry"
                         ) from exc
    if not isinstance(data, list):
        raise BenchError(f"fuzz: {path}: not a list")
    return data


def _is_fuzzer(target: Mapping[str, object]) -> bool:
    """An executable compiled with -fsanitize=...fuzzer... (the
    fuzz_mkseeds helpers are plain programs)."""
    if target.get("type") != "executable":
        return False
    for source in target.get("target_sources") or []:
        for param in source.get("parameters") or []:
            if param.startswith("-fsanitize=") and "fuzzer" in \
                    param.split("=", 1)[1].split(","):
                return True
    return False


def _smoke_args(tests: Sequence[Mapping[str, object]], binary: str
                ) -> List[str]:
    """What the first test running `binary` (a smoke.py run) passes after
    it: the corpus folder (or `-`) and the target's flags."""
    for test in tests:
        cmd = [str(c) for c in test.get("cmd") or []]
        for n, arg in enumerate(cmd):
            if pathlib.Path(arg).name == binary:
                return cmd[n + 1:]
    return []


def _regress(name: str, root: pathlib.Path) -> Optional[pathlib.Path]:
    folder = root / name
    return folder if folder.is_dir() else None


def host_targets(build: pathlib.Path, corpus_root: pathlib.Path = CORPUS,
                 regress_root: pathlib.Path = REGRESS) -> List[Target]:
    """The libFuzzer targets of a configured build folder (meson-info),
    with the corpus and flags of each one's smoke test where it has one,
    else corpus/<name without fuzz_>/ if that exists."""
    info = build / "meson-info"
    targets = _load(info / "intro-targets.json")
    tests = _load(info / "intro-tests.json")
    found: List[Target] = []
    for t in sorted(targets, key=lambda t: str(t.get("name"))):
        if not _is_fuzzer(t):
            continue
        name = str(t["name"])
        binary = pathlib.Path(str((t.get("filename") or [""])[0]))
        corpus: Optional[pathlib.Path] = None
        flags: List[str] = []
        for arg in _smoke_args(tests, binary.name):
            if arg.startswith("-"):
                if not arg.startswith(RUN_FLAGS):
                    flags.append(arg)
            elif corpus is None and arg != "-":
                corpus = pathlib.Path(arg)
        if corpus is None:
            guess = corpus_root / name.removeprefix("fuzz_")
            corpus = guess if guess.is_dir() else None
        found.append(Target(name, "host", [str(binary)], flags, corpus,
                            regress=_regress(name, regress_root)))
    return found


def qemu_targets(binary: pathlib.Path, corpus_root: pathlib.Path = CORPUS,
                 regress_root: pathlib.Path = REGRESS) -> List[Target]:
    out = []
    for config in QEMU_CONFIGS:
        corpus = corpus_root / config.name
        out.append(Target(config.name, "qemu", config.argv(binary),
                          config.flags(),
                          corpus if corpus.is_dir() else None,
                          config.env(),
                          _regress(config.name, regress_root)))
    return out


def python_targets(corpus_root: pathlib.Path = CORPUS,
                   regress_root: pathlib.Path = REGRESS,
                   pyfuzz: pathlib.Path = PYFUZZ) -> List[Target]:
    """The targets pyfuzz.py --list names, each with its corpus folder
    (corpus/<name>/, or the C target's it shares: py_inf fuzzes from
    corpus/inf/) and regress/<name>/."""
    try:
        proc = subprocess.run([sys.executable, str(pyfuzz), "--list"],
                              capture_output=True, text=True, timeout=60,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BenchError(f"fuzz: {pyfuzz} --list: {exc}") from None
    if proc.returncode:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise BenchError(f"fuzz: {pyfuzz} --list exited "
                         f"{proc.returncode}: {last}")
    out = []
    for line in proc.stdout.splitlines():
        name, _, folder = line.strip().partition(" ")
        if not name:
            continue
        corpus = corpus_root / (folder or name)
        out.append(Target(name, "python", [sys.executable, str(pyfuzz),
                                           name], list(PY_FLAGS),
                          corpus if corpus.is_dir() else None,
                          regress=_regress(name, regress_root)))
    return out


def qemu_target_names() -> List[str]:
    return [c.name for c in QEMU_CONFIGS]


def prepare_host_build() -> pathlib.Path:
    """build-fuzz/ configured with clang (as the test command's fuzz stage
    does) and its build files current, so its introspection lists the
    targets tests/fuzz/meson.build has now."""
    build = hostbuild.FUZZ_BUILD
    if shutil.which(hostbuild.FUZZ_CC) is None:
        raise BenchError(f"fuzz: {hostbuild.FUZZ_CC} not found (ndisbench "
                         f"setup installs it)")
    log = paths.REPO / "build.log"
    if not (build / "build.ninja").exists():
        with Step("build", f"meson setup {build.name} "
                           f"(CC={hostbuild.FUZZ_CC})"):
            run_logged(["meson", "setup", str(build), str(paths.REPO)],
                       log, f"meson setup {build.name}",
                       env={"CC": hostbuild.FUZZ_CC}, timeout=300)
    # regenerates build.ninja and meson-info when a meson.build changed
    run_logged(["ninja", "-C", str(build), "build.ninja"], log,
               f"{build.name}: regenerate", timeout=300)
    return build


def select(known: Sequence[str], wanted: Optional[Sequence[str]]
           ) -> List[str]:
    if not wanted:
        return list(known)
    bad = [w for w in wanted if w not in known]
    if bad:
        raise BenchError(f"unknown fuzz target(s) {', '.join(bad)} (known: "
                         f"{', '.join(known)})")
    return [k for k in known if k in wanted]


@dataclasses.dataclass
class Outcome:
    name: str
    kind: str
    seconds: float
    exit_code: Optional[int]
    stats: Stats
    artifacts: List[str]
    folder: str
    command: List[str]
    problems: List[str] = dataclasses.field(default_factory=list)

    @property
    def findings(self) -> int:
        return len(self.problems)

    @property
    def ok(self) -> bool:
        return not self.problems


def problems(exit_code: Optional[int], stats: Stats, kept: Sequence[str],
             overran: bool) -> List[str]:
    """One line per finding: each kept input; a sanitizer or libFuzzer
    report no input was kept for (a forked QEMU child's); a failing exit
    with neither (a target that could not start); running past its time."""
    found = [f"input {name}" for name in kept]
    if stats.reports and not kept:
        found.append(f"report without an input: {stats.reports[0]}")
    if exit_code not in (0, None) and not found:
        found.append(f"exited {exit_code}")
    if overran:
        found.append("killed: ran past its time")
    return found


def run_target(target: Target, seconds: int, seed: int,
               folder: pathlib.Path, replay: bool = False) -> Outcome:
    """Fuzz one target for `seconds` from a scratch copy of its corpus
    and regression inputs (replay: run each of them once, no fuzzing);
    its failing inputs and output (fuzz.log) stay in folder."""
    folder.mkdir(parents=True, exist_ok=True)
    log_path = folder / "fuzz.log"
    with tempfile.TemporaryDirectory(prefix=f"ndisbench-fuzz-"
                                     f"{target.name}-") as scratch:
        work = pathlib.Path(scratch) / "corpus"
        if target.corpus is not None:
            shutil.copytree(target.corpus, work)
        else:
            work.mkdir()
        if target.regress is not None:
            for item in sorted(target.regress.iterdir()):
                if item.is_file():
                    shutil.copyfile(item, work / f"regress-{item.name}")
        length = ["-runs=0"] if replay else [f"-max_total_time={seconds}"]
        cmd = [*target.argv, *target.flags, f"-seed={seed}", *length,
               "-print_final_stats=1", f"-artifact_prefix={folder}/",
               str(work)]
        env = dict(os.environ, **target.env)
        start = time.monotonic()
        overran = False
        with open(log_path, "wb") as log:
            log.write(("$ " + " ".join(cmd) + "\n").encode())
            log.flush()
            proc = subprocess.Popen(cmd, cwd=folder, env=env,
                                    stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
            assert proc.stdout is not None
            last = [""]

            def pump() -> None:
                for raw in proc.stdout:
                    log.write(raw)
                    text = raw.decode(errors="replace").strip()
                    if text.startswith("#"):
                        last[0] = text
                log.flush()

            reader = threading.Thread(target=pump, daemon=True)
            reader.start()
            beat = start + HEARTBEAT_SECS
            while True:
                try:
                    proc.wait(timeout=1.0)
                    break
                except subprocess.TimeoutExpired:
                    now = time.monotonic()
                    if now - start > seconds + GRACE_SECS:
                        proc.kill()
                        proc.wait()
                        overran = True
                        break
                    if now >= beat:
                        say("fuzz", f"{target.name}: {fmt_secs(now - start)}"
                                    f" of {seconds}s: {last[0][:90]}")
                        beat = now + HEARTBEAT_SECS
            reader.join(10)
            proc.stdout.close()
        elapsed = time.monotonic() - start
    stats = parse_output(log_path.read_text(errors="replace"))
    kept = [p.name for p in artifacts(folder)]
    code = None if overran else proc.returncode
    return Outcome(target.name, target.kind, round(elapsed, 1), code, stats,
                   kept, folder.name, cmd,
                   problems(code, stats, kept, overran))


def _fmt(value: Optional[int]) -> str:
    return "-" if value is None else f"{value:,}".replace(",", " ")


def _edges(pair: Optional[List[int]]) -> str:
    if not pair or not pair[1]:
        return "-"
    return f"{pair[0]} / {pair[1]} ({100 * pair[0] / pair[1]:.0f}%)"


def markdown(seed: int, minutes: float, outcomes: Sequence[Outcome],
             replay: bool = False) -> str:
    lines = [f"# ndisbench fuzz, seed {seed}", "",
             "Each corpus and regression input run once (`scripts/ndisbench "
             "fuzz --replay`): executions are inputs." if replay else
             f"{minutes:g} minutes in all, replay with `scripts/ndisbench "
             f"fuzz --seed {seed} --minutes {minutes:g}` (the same inputs "
             f"in the same order; how far a run gets depends on the "
             f"machine's speed).", "",
             "| target | kind | seconds | executions | exec/s | cov (edges) "
             "| ft (features) | corpus | findings |",
             "|---|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        st = o.stats
        cov = _fmt(st.cov) + (f" of {_fmt(st.counters)}" if st.counters
                              else "")
        lines.append(f"| `{o.name}` | {o.kind} | {o.seconds:.0f} | "
                     f"{_fmt(st.execs)} | {_fmt(st.exec_per_sec)} | {cov} | "
                     f"{_fmt(st.ft)} | {_fmt(st.corpus)} | {o.findings} |")
    if any(o.kind == "python" for o in outcomes):
        lines += ["", "Python targets (tests/fuzz/pyfuzz.py): cov is the "
                  "number of distinct lines of `scripts/ndisbench_lib` run "
                  "by the traced inputs (every seed and one input in "
                  "32), ft the number of distinct outcome classes "
                  "(accepted, or refused by which error)."]
    files = sorted({f for o in outcomes for f in o.stats.models})
    if files:
        lines += ["", "## Our device models' edges (QEMU targets)", "",
                  "Edges covered of those instrumented, per source file of "
                  "`qemu-devices/` (`-print_coverage=1`).", "",
                  "| target | " + " | ".join(f"`{f}`" for f in files) + " |",
                  "|---|" + "---|" * len(files)]
        for o in outcomes:
            if o.stats.models:
                lines.append(f"| `{o.name}` | " + " | ".join(
                    _edges(o.stats.models.get(f)) for f in files) + " |")
    bad = [o for o in outcomes if not o.ok]
    lines += ["", "## Findings", ""]
    if not bad:
        lines.append("None: no crash, sanitizer report, leak, timeout or "
                     "out-of-memory input.")
    for o in bad:
        lines.append(f"### `{o.name}` (exit {o.exit_code})")
        lines += [f"- {p}" for p in o.problems]
        replay = " ".join(o.command[:2] if o.kind == "qemu"
                          else o.command[:1])
        lines += [f"- reproduce: `{replay} {o.folder}/{a}`" +
                  (" with the QEMU_FUZZ_ARGS and QEMU_FUZZ_OBJECTS of "
                   "fuzz.json" if o.kind == "qemu" else "")
                  for a in o.artifacts]
        lines += [f"- `{r}`" for r in o.stats.reports[:5]]
        lines.append(f"- output: `{o.folder}/fuzz.log`")
        lines.append("")
    return "\n".join(lines) + "\n"


def new_fuzz_dir(out: pathlib.Path) -> pathlib.Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        folder = out / (f"fuzz-{stamp}" if n == 0 else f"fuzz-{stamp}-{n}")
        try:
            folder.mkdir(parents=True)
            return folder
        except FileExistsError:
            continue
    raise BenchError(f"{out}: cannot create a fuzz folder")


def shares(total_secs: float, count: int) -> int:
    return max(MIN_SECS, int(total_secs // max(1, count)))


def run(cache: Cache, out: pathlib.Path, minutes: float,
        wanted: Optional[Sequence[str]], seed: Optional[int],
        replay: bool = False) -> List[Outcome]:
    if minutes <= 0:
        raise BenchError(f"--minutes {minutes:g}: must be more than 0")
    seed = seed if seed is not None else secrets.randbelow(2**31 - 1) + 1
    if seed <= 0:
        raise BenchError(f"--seed {seed}: libFuzzer takes a positive seed")
    build = prepare_host_build()
    hosts = {t.name: t for t in host_targets(build)}
    pythons = {t.name: t for t in python_targets()}
    known = list(hosts) + list(pythons) + qemu_target_names()
    names = select(known, wanted)
    say("fuzz", f"seed {seed} (replay: scripts/ndisbench fuzz --seed "
                f"{seed}); targets: {', '.join(names)}")
    chosen_hosts = [n for n in names if n in hosts]
    if chosen_hosts:
        run_logged(["meson", "compile", "-C", str(build), *chosen_hosts],
                   paths.REPO / "build.log", f"meson compile {build.name}",
                   timeout=1800)
    targets = [hosts[n] for n in chosen_hosts]
    targets += [pythons[n] for n in names if n in pythons]
    if any(n not in hosts and n not in pythons for n in names):
        binary = qemu_fuzz.build_fuzz_qemu(cache)
        targets += [t for t in qemu_targets(binary) if t.name in names]
    folder = new_fuzz_dir(out)
    secs = shares(minutes * 60, len(targets))
    say("fuzz", f"{len(targets)} target(s), " +
        ("each input of its corpus and regression folders once"
         if replay else f"{secs}s each") +
        f"; inputs that fail and each target's output go to "
        f"{folder}/<target>/")
    outcomes = []
    for target in targets:
        with Step("fuzz", f"{target.name}: " +
                  ("replay" if replay else f"for {secs}s")):
            outcome = run_target(target, secs, seed, folder / target.name,
                                 replay)
        st = outcome.stats
        say("fuzz", f"{target.name}: {_fmt(st.execs)} executions, "
                    f"{_fmt(st.exec_per_sec)}/s, cov {_fmt(st.cov)}, ft "
                    f"{_fmt(st.ft)}, " + ("no finding" if outcome.ok else
                                          f"{outcome.findings} FINDING(S): "
                                          f"see {folder / target.name}"))
        outcomes.append(outcome)
    envs = {t.name: t.env for t in targets}
    (folder / "fuzz.json").write_text(json.dumps(
        {"seed": seed, "minutes": minutes, "seconds_each": secs,
         "replay": replay,
         "targets": [dataclasses.asdict(o) | {"findings": o.findings,
                                               "env": envs[o.name]}
                     for o in outcomes]}, indent=1) + "\n")
    (folder / "fuzz.md").write_text(markdown(seed, minutes, outcomes,
                                             replay))
    say("fuzz", f"wrote {folder / 'fuzz.md'} and fuzz.json")
    return outcomes
