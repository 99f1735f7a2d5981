"""The manual holds: README.md stays a short manual whose every
`scripts/ndisbench ...` command parses with our own command line and names
only kernels, devices and checks that exist; it names the test command
.ci/run runs; the recipes live once, in docs/architecture.md, each ending
with the test that enforces it; docs/measurements.md gives each figure
with the command that regenerates it; `list --long` is where the check
list is written out (from each check's own docstring)."""
import contextlib
import io
import re
import shlex
import sys
import unittest
import unittest.mock
from typing import List

from helpers import REPO
from ndisbench_lib import devices, kernels
from ndisbench_lib.checks import registry
from ndisbench_lib.commands import cli
from ndisbench_lib.errors import BenchError

README = REPO / "README.md"
ARCHITECTURE = REPO / "docs" / "architecture.md"
MEASUREMENTS = REPO / "docs" / "measurements.md"
# The manual's length limit: past it, detail belongs beside its code.
README_MAX_LINES = 330
# An inline code span (it may wrap across lines), a line of a code block
# (indented or fenced), and the command inside either (a shell operator,
# `$(...)` or a quote ends it; `time` or `$ ` may come before it).
SPAN_RE = re.compile(r"`(scripts/ndisbench\s[^`]*)`")
BLOCK_RE = re.compile(r"^(?: {4,}|\t)(.*)$")
COMMAND_RE = re.compile(r"(?:^|[\s($])scripts/ndisbench\s([^|&;)\"\n`>]*)")


def bench_commands(markdown: str) -> List[List[str]]:
    """Every `scripts/ndisbench ...` command of a Markdown text, as argv
    after the program: inline code spans and code block lines (a trailing
    backslash continues a line)."""
    code: List[str] = []
    prose: List[str] = []
    fenced = in_block = False
    after_blank = True
    for line in markdown.replace("\\\n", " ").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif fenced or (BLOCK_RE.match(line) and (after_blank or in_block)):
            code.append(line)
            in_block = not fenced
        else:
            in_block = in_block and not line.strip()
            prose.append(line)
        after_blank = not line.strip()
    code += [" ".join(span.split())
             for span in SPAN_RE.findall("\n".join(prose))]
    return [shlex.split(m.group(1)) for text in code
            for m in COMMAND_RE.finditer(text)]


# A path of the repository named in code: under one of its top folders,
# or a CI file at its top (a bare file name is a file of a run folder).
PATH_RE = re.compile(r"`((?:scripts|guest|docs|tests|wrapper|fixtures|"
                     r"qemu-devices|qemu-patches|\.ci|\.github)/[\w./-]*|"
                     r"\.[\w.-]+\.yml)`")


def missing_paths(markdown: str) -> List[str]:
    """The repository paths a text names that do not exist."""
    return [m for m in PATH_RE.findall(markdown)
            if "<" not in m and not (REPO / m).exists()]


def check_command(argv: List[str]) -> None:
    """Parses argv with the bench's own parser (SystemExit on a wrong
    subcommand or option) and resolves the kernels, devices, wrappers and
    checks it names (BenchError naming the unknown one)."""
    with contextlib.redirect_stderr(io.StringIO()):
        args = cli.parser().parse_args(argv)
    names = cli._names
    exp = kernels.load_expectations()
    for option in ("kernel", "matrix_kernel"):
        value = getattr(args, option, None)
        wanted = names([value] if isinstance(value, str) else value)
        if wanted:
            kernels.select(kernels.load_kernels(args.kernels_toml, exp),
                           wanted)
    for option in ("device", "a", "b"):
        value = getattr(args, option, None)
        wanted = names(value if isinstance(value, list) else
                       [value] if isinstance(value, str) else None)
        if wanted and wanted != ["none"]:
            devices.select(wanted)
    wrappers = names(getattr(args, "wrapper", None))
    if wrappers and args.command != "report":
        devices.select(None, wrappers)
    checks = names(getattr(args, "check", None))
    if checks:
        registry.select(checks)


class ReadmeTest(unittest.TestCase):
    def setUp(self):
        self.text = README.read_text()

    def test_is_a_short_manual(self):
        lines = len(self.text.splitlines())
        self.assertLessEqual(lines, README_MAX_LINES,
                             "README.md: move detail beside its code")

    def test_names_the_test_command_ci_runs(self):
        ci = (REPO / ".ci" / "run").read_text()
        self.assertIn("the test command README.md names", ci)
        self.assertIn("exec scripts/ndisbench test\n", ci)
        self.assertIn(["test"], bench_commands(self.text))

    def test_every_command_it_names_works(self):
        commands = bench_commands(self.text)
        subcommands = {argv[0] for argv in commands if argv}
        # the quick start and the five ideas at least
        self.assertTrue({"setup", "run", "report", "list", "test",
                         "compare"} <= subcommands, subcommands)
        for argv in commands:
            with self.subTest(argv=" ".join(argv)):
                check_command(argv)

    def test_every_path_it_names_exists(self):
        self.assertEqual(missing_paths(self.text), [])
        self.assertEqual(missing_paths(
            "see `docs/nowhere.md`, `guest/README.md`, `.gone-ci.yml`, "
            "`summary.md` and `guest/<kernel>/`"),
            ["docs/nowhere.md", ".gone-ci.yml"])

    def test_a_wrong_command_is_caught(self):
        """The check itself: a misspelt option, an unknown subcommand and
        an unknown kernel, device or check each fail."""
        text = ("Run `scripts/ndisbench run --chek tcp` or\n\n"
                "    scripts/ndisbench rnu\n\n"
                "```\n$ scripts/ndisbench run --kernel src-9.9 \\\n"
                "    --check tcp\n```\n"
                "then `scripts/ndisbench run --device nosuch`, "
                "`scripts/ndisbench run --check nosuch || true`.\n")
        commands = bench_commands(text)
        # code blocks first, then the inline spans
        self.assertEqual(commands, [
            ["rnu"], ["run", "--kernel", "src-9.9", "--check", "tcp"],
            ["run", "--chek", "tcp"], ["run", "--device", "nosuch"],
            ["run", "--check", "nosuch"]])
        for argv in (commands[0], commands[2]):
            with self.assertRaises(SystemExit):
                check_command(argv)
        for argv, unknown in ((commands[1], "kernel(s) src-9.9"),
                              (commands[3], "device(s) nosuch"),
                              (commands[4], "check(s) nosuch")):
            with self.assertRaisesRegex(BenchError,
                                        re.escape(f"unknown {unknown}")):
                check_command(argv)


class RecipesTest(unittest.TestCase):
    """docs/architecture.md is the one home of the recipes; each ends with
    the test that enforces it, and that test exists."""
    RECIPE_RE = re.compile(r"^#{2,4} (?:Recipe: )?(Add a [^\n]*)$", re.M)
    HOMES = ("README.md", "qemu-devices/README.md", "guest/README.md",
             "wrapper/README.md", "fixtures/README.md", "docs/subjects.md",
             "docs/user-drivers.md", "docs/measurements.md")

    def test_one_home(self):
        for name in self.HOMES:
            path = REPO / name
            if path.exists():
                self.assertEqual(self.RECIPE_RE.findall(path.read_text()),
                                 [], name)

    def test_each_recipe_ends_with_its_test(self):
        text = ARCHITECTURE.read_text()
        titles = self.RECIPE_RE.findall(text)
        self.assertTrue({"Add a kernel policy", "Add a device model",
                         "Add a check", "Add a fuzz target"} <=
                        {t.strip() for t in titles}, titles)
        sections = self.RECIPE_RE.split(text)[1:]
        for title, body in zip(sections[::2], sections[1::2]):
            body = re.split(r"^#{1,4} ", body, flags=re.M)[0].strip()
            last = body.splitlines()[-1]
            with self.subTest(recipe=title):
                self.assertTrue(last.startswith("Enforced by:"), last)
                tests = re.findall(r"`(tests/[\w/.-]+)", last)
                self.assertTrue(tests, last)
                for test in tests:
                    self.assertTrue((REPO / test).exists(), test)


class MeasurementsTest(unittest.TestCase):
    def test_each_figure_has_its_command(self):
        text = MEASUREMENTS.read_text()
        self.assertLess(len(text.splitlines()), 300,
                        "docs/measurements.md: current figures only")
        sections = re.split(r"^## ", text, flags=re.M)[1:]
        self.assertTrue(sections)
        for section in sections:
            title = section.splitlines()[0]
            with self.subTest(figure=title):
                commands = bench_commands(section)
                self.assertTrue(commands, "no command regenerates it")
                for argv in commands:
                    check_command(argv)


class ListLongTest(unittest.TestCase):
    def listed(self, *argv: str) -> List[str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(cli.main(["list", *argv]), 0)
        lines = out.getvalue().splitlines()
        start = lines.index("checks (scripts/ndisbench_lib/checks/):")
        return lines[start + 1:lines.index(
            next(x for x in lines[start:] if x.startswith("cache: ")))]

    def test_one_line_per_check_from_its_docstring(self):
        lines = self.listed("--long")
        checks = registry.all_checks()
        self.assertEqual(len(lines), len(checks))
        for line, check in zip(lines, checks):
            doc = " ".join(sys.modules[check.judge.__module__]
                           .__doc__.split())
            self.assertEqual(line.split()[0], check.name)
            # the docstring's words, without its leading "<name>:"
            self.assertIn(" ".join(doc.split()[1:6]), line, check.name)
        tcp = next(x for x in lines if x.split()[0] == "tcp")
        self.assertIn("the guest's count, the sink's reply and the host's "
                      "own count must all match", tcp)
        udp = next(x for x in lines if x.split()[0] == "udp")
        self.assertTrue(udp.endswith("(only with --check)"), udp)

    def test_each_device_row_with_its_checks(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(cli.main(["list", "--long"]), 0)
        lines = out.getvalue().splitlines()
        rows = lines[lines.index("devices:") + 1:lines.index(
            "checks (scripts/ndisbench_lib/checks/):")]
        self.assertEqual([x.split()[0] for x in rows],
                         [d.label for d in devices.TARGETS])
        for line, device in zip(rows, devices.TARGETS):
            applies = registry.for_device(device, registry.names())
            self.assertTrue(line.endswith(f"checks: {', '.join(applies)}"),
                            line)
        none = rows[[d.label for d in devices.TARGETS].index("none")]
        self.assertTrue(none.endswith(
            "checks: build, load, taint, driverloader, control, survive, "
            "sandbox"), none)

    def test_short_list_keeps_the_one_line_doc(self):
        lines = self.listed()
        self.assertEqual([x.split()[0] for x in lines],
                         [c.name for c in registry.all_checks()])
        tcp = next(x for x in lines if x.split()[0] == "tcp")
        self.assertEqual(tcp.split(None, 1)[1],
                         registry.get("tcp").doc)


class NoIssueNumbersTest(unittest.TestCase):
    """A reader of the code cannot open "issue N": the reason is written
    out instead."""
    FOLDERS = ("scripts", "wrapper", "guest", "qemu-devices", "fixtures",
               "tests", "docs")
    # guest/kernels.toml is being rewritten (bases x policies) by other
    # work at the same time: its three comments go with the rewrite.
    PENDING = {"guest/kernels.toml",
               # history, not a manual
               "docs/history/measurements-2026.md",
               # this test's own pattern
               "tests/unit/project/test_manual.py"}
    ISSUE_RE = re.compile(r"\bissues? #?[0-9]+", re.I)
    SUFFIXES = {".py", ".c", ".h", ".md", ".toml", ".S", ".inf", ".txt",
                ".build", ""}

    def test_none_left(self):
        files = [README] + [p for folder in self.FOLDERS
                            for p in (REPO / folder).rglob("*")
                            if p.is_file() and p.suffix in self.SUFFIXES]
        hits = []
        for path in files:
            rel = str(path.relative_to(REPO))
            if rel in self.PENDING or "/data/" in rel or \
                    "__pycache__" in rel or "/corpus/" in rel:
                continue
            try:
                text = path.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            for n, line in enumerate(text.splitlines(), 1):
                if self.ISSUE_RE.search(line):
                    hits.append(f"{rel}:{n}: {line.strip()}")
        self.assertEqual(hits, [])


if __name__ == "__main__":
    unittest.main()
