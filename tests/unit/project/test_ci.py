"""The CI files validate: .github/workflows/ndisbench.yml and .gitlab-ci.yml
are YAML (yamllint, strict) in the subset yamlsubset.py reads; they fan
the matrix out as N parallel shard jobs whose --shard I/N, matrix list or
parallel count, cache keys, artifact folders and merge job agree; every
`scripts/ndisbench` command they run parses with our own command line."""
import fnmatch
import pathlib
import re
import shlex
import shutil
import subprocess
import unittest
import unittest.mock
from typing import Dict, List

from helpers import REPO
from ndisbench_lib.build import cachekey
from ndisbench_lib.cell import shard
from ndisbench_lib.commands import cli
from yamlsubset import YamlError, loads

GITHUB = REPO / ".github" / "workflows" / "ndisbench.yml"
GITLAB = REPO / ".gitlab-ci.yml"
# What the CI variables stand for when a command line is checked.
SAMPLE = {"${{ matrix.shard }}": "2", "${CI_NODE_INDEX}": "2",
          "${CI_NODE_TOTAL}": "4"}


def bench_commands(script: str) -> List[List[str]]:
    """Every `scripts/ndisbench ...` command of a shell script, as argv
    after the program, with the CI variables replaced by SAMPLE."""
    text = script.replace("\\\n", " ")
    for var, value in SAMPLE.items():
        text = text.replace(var, value)
    # up to a shell operator, the end of $(...) or of a "..." around it
    return [shlex.split(m.group(1)) for m in re.finditer(
        r"(?:^|[\s(])scripts/ndisbench\s([^|&;)\"\n]*)", text)]


def scripts_of(job: Dict) -> str:
    """A job's shell: GitHub's run steps, GitLab's script lists."""
    if "steps" in job:
        return "\n".join(s.get("run", "") for s in job["steps"])
    return "\n".join(job.get("before_script", []) + job.get("script", []))


class YamlSubsetTest(unittest.TestCase):
    def test_reads_what_the_ci_files_use(self):
        doc = loads("a: 1\nb:\n  - x\n  - k: 'q''s'\n    v: [1, two]\n"
                    "c: |\n  line 1\n\n  line 2 # kept\nd: \"s\"  # c\n"
                    "e:\n- bare\n")
        self.assertEqual(doc, {"a": 1, "b": ["x", {"k": "q's",
                                                   "v": [1, "two"]}],
                               "c": "line 1\n\nline 2 # kept\n", "d": "s",
                               "e": ["bare"]})

    def test_refuses_what_it_does_not_know(self):
        for text in ("a:\n\tb: 1\n", "a: 1\na: 2\n", "a: &x 1\n",
                     "a: *x\n", "a: {b: 1}\n", "a: >\n  x\n",
                     "a: b: c\n", "a:\n  b: 1\n   c: 2\n", "---\na: 1\n",
                     "a: 'open\n", "- a\nb: 1\n", "a: !tag x\n"):
            with self.assertRaises(YamlError, msg=text):
                loads(text)


class CiFilesTest(unittest.TestCase):
    def setUp(self):
        self.gh = loads(GITHUB.read_text())
        self.gl = loads(GITLAB.read_text())

    def test_yamllint_strict(self):
        # setup installs yamllint (commands/setup.py REQUIREMENTS)
        self.assertIsNotNone(shutil.which("yamllint"),
                             "yamllint missing: run scripts/ndisbench setup")
        res = subprocess.run(["yamllint", "-s", "-c", str(REPO / ".yamllint"),
                              str(GITHUB), str(GITLAB)],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def github_count(self) -> int:
        shards = self.gh["jobs"]["shard"]["strategy"]["matrix"]["shard"]
        self.assertEqual(shards, list(range(1, len(shards) + 1)))
        self.assertGreater(len(shards), 1)
        return len(shards)

    def test_github_shards_cache_and_merge_agree(self):
        n = self.github_count()
        jobs = self.gh["jobs"]
        self.assertEqual(set(jobs), {"shard", "merge"})
        job = jobs["shard"]
        self.assertIn(f"/{n}", job["name"])
        steps = {s.get("uses", "").split("@")[0] or s.get("id") or
                 s.get("name"): s for s in job["steps"]}
        for step in job["steps"] + jobs["merge"]["steps"]:
            if "uses" in step:
                self.assertRegex(step["uses"], r"^[\w./-]+@v\d+$")
        runs = [c for c in bench_commands(scripts_of(job)) if c[0] == "run"]
        self.assertEqual(len(runs), 1)
        args = cli.parser().parse_args(runs[0])
        self.assertEqual(shard.parse_spec(args.shard), (2, n))
        # the cache: keyed by cache-key's output and the shard, saved alike
        self.assertEqual(bench_commands(steps["key"]["run"]),
                         [["cache-key"]])
        restore = steps["actions/cache/restore"]["with"]
        save = steps["actions/cache/save"]["with"]
        self.assertEqual(restore["key"], save["key"])
        self.assertIn("${{ steps.key.outputs.key }}", restore["key"])
        self.assertIn("${{ matrix.shard }}", restore["key"])
        self.assertIn(f"-of-{n}", restore["key"])
        self.assertTrue(restore["restore-keys"].splitlines())
        # each fallback is a prefix of the key (cache-key prints PREFIX...)
        printed = cachekey.PREFIX + "0" * 24
        full = restore["key"].replace("${{ steps.key.outputs.key }}",
                                      printed)
        for prefix in restore["restore-keys"].splitlines():
            self.assertTrue(full.startswith(prefix.replace(
                "${{ steps.key.outputs.key }}", printed)), prefix)
        self.assertEqual(restore["path"], self.gh["env"]["NDISBENCH_CACHE"])
        # each shard uploads its --out folder; merge downloads them all
        upload = steps["actions/upload-artifact"]["with"]
        self.assertEqual(upload["path"].rstrip("/"),
                         str(args.out).replace("2", "${{ matrix.shard }}"))
        merge = jobs["merge"]
        self.assertEqual(merge["needs"], ["shard"])
        down = [s for s in merge["steps"]
                if s.get("uses", "").startswith("actions/download-artifact")]
        self.assertEqual(len(down), 1)
        names = [upload["name"].replace("${{ matrix.shard }}", str(i))
                 for i in range(1, n + 1)]
        self.assertTrue(all(fnmatch.fnmatch(x, down[0]["with"]["pattern"])
                            for x in names))
        merges = [c for c in bench_commands(scripts_of(merge))
                  if c[0] == "merge"]
        self.assertEqual(len(merges), 1)
        margs = cli.parser().parse_args(merges[0])
        folders = [f"{down[0]['with']['path']}/{x}/20261204-050000/"
                   for x in names]
        self.assertTrue(all(fnmatch.fnmatch(f, margs.runs[0])
                            for f in folders), margs.runs)

    def test_gitlab_shards_cache_and_merge_agree(self):
        n = self.gl["shard"]["parallel"]
        self.assertIsInstance(n, int)
        self.assertGreater(n, 1)
        self.assertEqual(n, self.github_count())
        stages = self.gl["stages"]
        jobs = {k: v for k, v in self.gl.items()
                if isinstance(v, dict) and "script" in v}
        self.assertEqual(set(jobs), {"shard", "merge"})
        for job in jobs.values():
            self.assertIn(job["stage"], stages)
        self.assertLess(stages.index("shard"), stages.index("merge"))
        job = jobs["shard"]
        runs = [c for c in bench_commands(scripts_of(job)) if c[0] == "run"]
        self.assertEqual(len(runs), 1)
        args = cli.parser().parse_args(runs[0])
        self.assertEqual(shard.parse_spec(args.shard), (2, 4))
        self.assertIn("${CI_NODE_INDEX}/${CI_NODE_TOTAL}", scripts_of(job))
        key = job["cache"]["key"]
        self.assertIn("${CI_NODE_INDEX}", key["prefix"])
        self.assertIn("${CI_NODE_TOTAL}", key["prefix"])
        self.assertLessEqual(len(key["files"]), 2)    # GitLab's limit
        for name in key["files"]:
            self.assertTrue((REPO / name).is_file(), name)
        cache_dir = self.gl["variables"]["NDISBENCH_CACHE"]
        self.assertEqual(cache_dir, "$CI_PROJECT_DIR/" +
                         job["cache"]["paths"][0].rstrip("/"))
        self.assertEqual(job["artifacts"]["paths"],
                         [str(args.out).replace("2", "${CI_NODE_INDEX}")
                          + "/"])
        merge = jobs["merge"]
        self.assertEqual(merge["needs"], ["shard"])
        merges = [c for c in bench_commands(scripts_of(merge))
                  if c[0] == "merge"]
        self.assertEqual(len(merges), 1)
        margs = cli.parser().parse_args(merges[0])
        for i in range(1, n + 1):
            self.assertTrue(fnmatch.fnmatch(f"out/shard-{i}/20261204-050000/",
                                            margs.runs[0]))
        self.assertFalse(fnmatch.fnmatch(f"{margs.out}/x/", margs.runs[0]))

    def test_snapshots_fit_the_hosted_caches(self):
        """Each shard's saved guests stay within its share of a hosted
        cache (GitHub's is 10 GB per repository, for all four shards)."""
        from ndisbench_lib.guest import snapshot
        for env in (self.gh["env"], self.gl["variables"]):
            with unittest.mock.patch.dict(
                    "os.environ",
                    {"NDISBENCH_SNAPSHOT_MB": str(
                        env["NDISBENCH_SNAPSHOT_MB"])}):
                self.assertLessEqual(snapshot.budget_bytes() * 4,
                                     8_000_000_000)

    def test_command_lines_are_checked(self):
        """The argv check itself: a wrong option would be caught."""
        with self.assertRaises(SystemExit), \
                unittest.mock.patch("sys.stderr"):
            cli.parser().parse_args(bench_commands(
                "scripts/ndisbench run --shards 1/2 || true")[0])
        self.assertEqual(bench_commands(
            'echo "k=$(scripts/ndisbench cache-key)"\n'
            "scripts/ndisbench run --shard ${CI_NODE_INDEX}/4 \\\n"
            "  --out o || test $? -eq 1\n"),
            [["cache-key"], ["run", "--shard", "2/4", "--out", "o"]])


class CacheKeyTest(unittest.TestCase):
    def test_changes_with_an_input_and_only_then(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            (root / "guest" / "agent").mkdir(parents=True)
            (root / "guest" / "agent" / "a.c").write_text("int a;\n")
            (root / "meson.build").write_text("project('x')\n")
            first = cachekey.cache_key(root)
            self.assertRegex(first, r"^ndisbench-[0-9a-f]{24}$")
            (root / "out").mkdir()
            (root / "out" / "results.json").write_text("{}")
            (root / "guest" / "__pycache__").mkdir()
            (root / "guest" / "__pycache__" / "x.pyc").write_bytes(b"0")
            self.assertEqual(cachekey.cache_key(root), first)
            (root / "guest" / "agent" / "a.c").write_text("int b;\n")
            self.assertNotEqual(cachekey.cache_key(root), first)


if __name__ == "__main__":
    unittest.main()
