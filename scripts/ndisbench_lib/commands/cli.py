"""Command line: setup, build, run, bisect, bench, list, report, compare,
merge, durations, cache-key, test, fuzz."""
import argparse
import json
import os
import pathlib
import signal
import sys
import threading
import traceback
from typing import Dict, List, Optional, Tuple

from .. import devices, kernels, paths, proc, userdriver
from ..build import modules
from ..build.cache import Cache, cache_budget, free_floor, prune_cache
from ..checks import registry
from ..checks.check import Check
from ..checks.modload import LOAD_ORDER
from ..errors import BenchError
from ..guest import clock
from ..progress import say
from ..report import report
from ..cell import runner, shard
from ..cell.plan import GUEST_TIMEOUT_FLOOR, device_rows, prepare


PATCHES = paths.REPO / "guest" / "patches"


def _names(values: Optional[List[str]]) -> Optional[List[str]]:
    """--kernel a b, --kernel a --kernel b and --kernel a,b all work."""
    if not values:
        return None
    return [n for v in values for n in v.split(",") if n]


def _checks(values: Optional[List[str]]) -> List[str]:
    """The checks of a run: those named (or the default ones), and always
    `build`, so every cell says whether its modules were built."""
    names = _names(values) or registry.default_names()
    return registry.select(list(names) + ["build"])


def cmd_setup(args: argparse.Namespace) -> int:
    from .setup import setup
    setup(kernels.load_kernels(args.kernels_toml))
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    from ..build.hostbuild import build_agent
    from ..build.kbuild import kernel_artifact
    exp = kernels.load_expectations()
    selected = kernels.select(kernels.load_kernels(args.kernels_toml, exp),
                              _names(args.kernel), args.arch)
    cache = Cache(paths.cache_root())
    what = args.what
    if what == "fetch":
        failed_names = runner.fetch_kernels_ahead(
            runner.build_order(selected), cache, exp,
            list(exp.module_names), None)
        say("build", f"fetched, cache {cache.root}" if not failed_names
            else f"{len(failed_names)} kernel(s) failed to fetch: "
                 f"{', '.join(failed_names)}")
        return 1 if failed_names else 0
    failed = 0
    if what in ("agent", "all"):
        build_agent()
    if what in ("qemu", "all"):
        from ..build.qemu_build import build_qemu
        build_qemu(cache)
    if what in ("fixtures", "all"):
        from ..build.hostbuild import build_fixtures, guest_tools
        say("build", f"fixtures: {build_fixtures(cache)}")
        guest_tools()
    for kernel in selected if what in ("kernels", "all") else []:
        if what == "kernels":
            try:
                kernel_artifact(kernel, cache)
            except BenchError as exc:
                say("build", f"ERROR: {exc}")
                failed += 1
            continue
        prep = prepare(kernel, cache, exp, LOAD_ORDER)
        # A module that did not build fails the build command too (a run
        # shows it as the cells' build check).
        failed += bool(prep.error or prep.failed)
    say("build", f"done, cache {cache.root}" if not failed else
        f"{failed} kernel(s) failed")
    return 1 if failed else 0


def _one_kernel(args: argparse.Namespace
                ) -> Tuple[kernels.Expectations, kernels.Kernel]:
    """The expectation table and the one kernel of --kernel (bench, pair,
    soak)."""
    exp = kernels.load_expectations()
    return exp, kernels.select(kernels.load_kernels(args.kernels_toml, exp),
                               [args.kernel])[0]


def _matrix(args: argparse.Namespace,
            default_kernels: Optional[List[str]] = None) -> runner.Matrix:
    """The cells the command line selects (validated before any build);
    default_kernels: what no --kernel means (else kernels.toml's
    defaults)."""
    exp = kernels.load_expectations()
    matrix = kernels.load_kernels(args.kernels_toml, exp)
    names = _names(args.kernel)
    trees = getattr(args, "kernel_tree", None) or []
    arch = getattr(args, "arch", None)
    # --kernel-tree adds to what --kernel names; alone, it is the run.
    if trees and not names and default_kernels is None and arch is None:
        selected: List[kernels.Kernel] = []
    else:
        selected = kernels.select(matrix, names or default_kernels, arch)
    if trees:
        selected = kernels.add_trees(selected, matrix, trees, exp,
                                     args.kernel_tree_policy)
    src = getattr(args, "wrapper_src", None)
    if src is not None:
        src = src.resolve()
        modules.check_wrapper_src(src)
    driver = getattr(args, "driver", None)
    if driver is not None:
        return runner.Matrix(selected, _driver_rows(args, driver, selected,
                                                    src is None),
                             _checks(args.check or
                                     list(userdriver.CHECKS)), exp, src,
                             shard=_shard(args),
                             snapshots=_snapshots(args))
    return runner.Matrix(selected, device_rows(_names(args.device),
                                               _names(args.wrapper)),
                         _checks(args.check), exp, src,
                         shard=_shard(args), snapshots=_snapshots(args))


def _snapshots(args: argparse.Namespace) -> bool:
    """run --no-snapshots: every guest boots (nothing restored or
    saved)."""
    return not getattr(args, "no_snapshots", False)


def _driver_rows(args: argparse.Namespace, inf: pathlib.Path,
                 selected: List[kernels.Kernel], own_wrapper: bool
                 ) -> List[devices.Device]:
    """run --driver: the user's driver on the NIC its .inf names, and the
    NIC's in-tree reference row beside it where the matrix has one. The
    driver must suit every selected kernel's guest architecture (a mixed
    list is refused naming the kernels it does not suit: --arch picks
    one), before anything is built or booted."""
    if args.device or args.wrapper:
        raise BenchError("--driver makes its own device row: no --device "
                         "or --wrapper with it")
    guests: Dict[str, List[str]] = {}
    for kernel in selected:
        guests.setdefault(kernel.arch, []).append(kernel.name)
    row = userdriver.device(inf, guests or None, own_wrapper)
    ref = userdriver.reference(row)
    return [row] + ([ref] if ref else [])


def _shard(args: argparse.Namespace) -> Optional[shard.Shard]:
    """--shard I/N with its durations (run only)."""
    spec = getattr(args, "shard", None)
    if spec is None:
        if getattr(args, "durations", None) is not None:
            raise BenchError("--durations needs --shard I/N")
        return None
    index, count = shard.parse_spec(spec)
    durations, source = shard.load_durations(args.durations)
    return shard.Shard(index, count, durations, source)


def cmd_run(args: argparse.Namespace) -> int:
    result = runner.run(_matrix(args), Cache(paths.cache_root()), args.out,
                        args.jobs, args.timeout, args.accel, args.clock)
    sys.stdout.write("\n" + report.terminal(result) + "\n")
    say("run", f"{report.summary_line(result)}; see "
               f"{args.out / result.run_id / 'summary.md'} and "
               f"{args.out / result.run_id / 'report.html'}")
    return 0 if result.ok else 1


def cmd_merge(args: argparse.Namespace) -> int:
    from ..report import merge
    run_dir, result = merge.merge([_run_dir(r, args.out) for r in args.runs],
                                  args.out)
    sys.stdout.write(report.terminal(result) + "\n")
    say("merge", f"{len(result.shard['merged'])} shard(s) "  # type: ignore
                 f"merged: {report.summary_line(result)}; see "
                 f"{run_dir / 'summary.md'} and {run_dir / 'report.html'}")
    return 0 if result.ok else 1


def cmd_durations(args: argparse.Namespace) -> int:
    from ..report.compare import run_dirs
    dirs = [_run_dir(r, args.out) for r in args.runs] if args.runs else [
        d for d in run_dirs(args.out)]
    if not dirs:
        raise BenchError(f"no run folder under {args.out}")
    sys.stdout.write(json.dumps(shard.collect(dirs), indent=1) + "\n")
    return 0


def cmd_cache_key(args: argparse.Namespace) -> int:
    from ..build.cachekey import cache_key
    print(cache_key())
    return 0


def check_description(check: Check) -> str:
    """A check's whole description on one line: the docstring of the
    module that declares it (the one place it is written), without its
    leading "<name>:" (`list` prints the name)."""
    module = sys.modules[check.judge.__module__]
    doc = " ".join((module.__doc__ or check.doc).split())
    if doc.startswith(check.name + ":"):
        doc = doc[len(check.name) + 1:].lstrip()
    elif doc.startswith(check.name + " "):
        doc = doc[len(check.name) + 1:]
    return doc


def cmd_list(args: argparse.Namespace) -> int:
    exp = kernels.load_expectations()
    cache = Cache(paths.cache_root())
    print("kernels (guest/kernels.toml):")
    matrix = kernels.load_kernels(args.kernels_toml, exp)
    name_w = max(len(k.name) for k in matrix)
    source_w = max(len(k.source) for k in matrix)
    arch_w = max(len(a) for a in kernels.ARCHES)
    for k in matrix:
        if k.is_debian:
            detail = k.image
        elif k.is_tree:
            detail = f"{k.path} ({k.release})"
        elif k.patch:
            # 5.10/policy-...: the patches of another source have a folder
            detail = k.patch.name if k.patch.parent == PATCHES else \
                f"{k.patch.parent.name}/{k.patch.name}"
        else:
            detail = "unpatched"
        if k.suite and k.is_debian:
            detail += f" ({k.suite}, modules built in its chroot)"
        elif k.suite:
            detail += f" ({k.suite}'s source package)"
        note = "" if k.default else " (only with --kernel)"
        print(f"  {k.name:{name_w}} {k.arch:{arch_w}} {k.source:{source_w}}"
              f" policy {k.policy.name:11} {detail}{note}")
    print("policies (tests/e2e/expectations.toml):")
    # Commit fields are subjects where no hash was verified: size the
    # column to the longest so the modes stay aligned.
    width = max((len(p.commit) for p in exp.policies.values()), default=0)
    for p in exp.policies.values():
        modes = ", ".join(f"{r}={m}" for r, m in p.modes.items())
        print(f"  {p.name:11} {p.commit:{width}} {modes}")
    print("devices:")
    for d in devices.TARGETS:
        note = "" if d.default else " (only with --device)"
        if args.long:
            note += "; checks: " + ", ".join(
                registry.for_device(d, registry.names()))
        print(f"  {d.label:20} {d.description}{note}")
    print("checks (scripts/ndisbench_lib/checks/):")
    for c in registry.all_checks():
        note = ("" if c.default else " (only with --check)" if c.selectable
                else " (pair only)")
        if c.own_cell:
            note = (" (only with --check: a cell of its own on each kernel, "
                    "no device)")
        doc = check_description(c) if args.long else c.doc
        print(f"  {c.name:12} {doc}{note}")
    print(f"cache: {cache.root}")
    return 0


def _run_dir(arg: str, out: pathlib.Path) -> pathlib.Path:
    path = pathlib.Path(arg)
    if path.is_dir():
        return path
    if arg == "latest":
        runs = sorted(p for p in out.glob("*") if (p / "results.json")
                      .exists())
        if runs:
            return runs[-1]
    if (out / arg).is_dir():
        return out / arg
    raise BenchError(f"run '{arg}' not found (a folder, a run id under "
                     f"{out}, or 'latest')")


def cmd_report(args: argparse.Namespace) -> int:
    run_dir = _run_dir(args.run, args.out)
    result = report.load(run_dir)
    if args.kcidb:
        from ..report import kcidb
        path = kcidb.write(run_dir, result, args.kcidb_origin,
                           args.kcidb_url)
        data = json.loads(path.read_text())
        say("report", f"wrote {path}: KCIDB v5.0, "
                      f"{len(data['checkouts'])} checkout(s), "
                      f"{len(data['builds'])} build(s), "
                      f"{len(data['tests'])} test(s), valid against "
                      f"{kcidb.SUBSET.relative_to(paths.REPO)}")
        return 0
    if args.phases:
        from ..cell import phases
        sys.stdout.write("\n".join(phases.markdown(
            phases.summary(run_dir, result.cells)) or [
                f"{run_dir}: no cell has {phases.FILE}"]) + "\n")
        return 0
    if args.by_kernel:
        from ..report import bykernel
        sys.stdout.write(bykernel.text(result, args.wrapper))
        return 1 if bykernel.regressed(result, args.wrapper) else 0
    report.render(run_dir, result)
    sys.stdout.write(report.terminal(result) + "\n")
    say("report", f"{report.summary_line(result)}; wrote "
                  f"{run_dir / 'summary.md'}, {run_dir / 'junit.xml'} and "
                  f"{run_dir / 'report.html'}")
    return 0 if result.ok else 1


def cmd_compare(args: argparse.Namespace) -> int:
    from ..report import compare
    return compare.main(args.run_a, args.run_b, args.out)


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench
    exp = kernels.load_expectations()
    benched = kernels.select(kernels.load_kernels(args.kernels_toml, exp),
                             _names(args.kernel))
    names = _names(args.device) or list(bench.DEVICES)
    if not 0 <= args.profile <= PROFILE_HZ_MAX:
        raise BenchError(f"--profile {args.profile}: 1 to {PROFILE_HZ_MAX} "
                         "samples a second")
    bad = [n for n in names if n not in devices.DEVICES]
    if bad:
        raise BenchError(f"unknown device(s) {', '.join(bad)} for bench "
                         f"(known: {', '.join(bench.DEVICES)})")
    # The default matrix (kernels.toml's defaults), or the kernels named.
    default = runner.Matrix(kernels.select(kernels.load_kernels(
        args.kernels_toml, exp), _names(args.matrix_kernel)),
        devices.select(None), registry.default_names(), exp)
    # ... and every kernel of every architecture (run --kernel all --arch all)
    axis = runner.Matrix(kernels.select(kernels.load_kernels(
        args.kernels_toml, exp), [kernels.ALL]), devices.select(None),
        registry.default_names(), exp)
    res = bench.run(benched, exp, Cache(paths.cache_root()), args.out,
                    args.rounds, args.timeout, args.accel, names,
                    args.matrix, default, args.edit_cycle,
                    clock.parse_list(args.clocks), args.matrix_jobs,
                    whole_axis=axis, profile_hz=args.profile)
    sys.stdout.write("\n" + bench.markdown(res))
    say("bench", f"wrote {args.out / res.bench_id / 'bench.json'}, "
                 f"bench.md and bench.html")
    return 1 if res.failures else 0


# The agent's bound (guest/agent/profile.c PROFILE_HZ_MAX).
PROFILE_HZ_MAX = 10000


def cmd_pair(args: argparse.Namespace) -> int:
    from . import pair
    exp, kernel = _one_kernel(args)
    result = pair.run(kernel, exp, Cache(paths.cache_root()), args.out,
                      args.a, args.b, args.timeout, args.accel)
    sys.stdout.write("\n" + report.matrix(result) + "\n")
    folder = args.out / pair.PAIRS_DIR / result.run_id
    say("pair", f"{report.summary_line(result)}; see "
                f"{folder / 'summary.md'} and pair.json")
    return 0 if result.ok else 1


def cmd_soak(args: argparse.Namespace) -> int:
    from . import soak
    exp, kernel = _one_kernel(args)
    if args.device not in devices.DEVICES:
        raise BenchError(f"--device {args.device}: unknown (known: "
                         f"{', '.join(devices.DEVICES)})")
    res = soak.run(kernel, devices.DEVICES[args.device], exp,
                   Cache(paths.cache_root()), args.out, args.minutes,
                   args.cycles, args.accel)
    say("soak", f"wrote {args.out / res.soak_id / 'soak.md'} and soak.json")
    print(soak.summary_line(res))
    return 0 if res.ok else 1


def cmd_fuzz(args: argparse.Namespace) -> int:
    from . import fuzz
    outcomes = fuzz.run(Cache(paths.cache_root()), args.out, args.minutes,
                        _names(args.target), args.seed, args.replay)
    bad = [o.name for o in outcomes if not o.ok]
    say("fuzz", f"{len(outcomes)} target(s), " + (
        f"FINDINGS in {', '.join(bad)}" if bad else "no finding"))
    return 1 if bad else 0


def cmd_bisect(args: argparse.Namespace) -> int:
    from . import bisect, bisect_cell
    folder, res = bisect_cell.run(
        args.wrapper_src, args.good, args.bad, args.kernel, args.device,
        _names(args.check), args.kernels_toml, args.out, args.timeout,
        args.accel, args.clock, not args.no_snapshots)
    print(bisect.headline(res))
    say("bisect", f"wrote {folder / 'bisect.json'} and bisect.md")
    return 0 if res.ok else 1


def cmd_test(args: argparse.Namespace) -> int:
    from .selftest import run_tests
    # The test command runs every kernel, the slow debug one included.
    return run_tests(lambda: _matrix(args, [kernels.ALL]), args)


ARCH_HELP = ("guest architecture: " + ", ".join(kernels.ARCHES) +
             " or all; alone, every kernel of it; with --kernel, the named "
             "ones of it")


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="ndisbench", description="QEMU test bench for NDIS wrappers.")
    top.add_argument("--kernels-toml", type=pathlib.Path,
                     default=paths.KERNELS_TOML,
                     help="kernel matrix (default: guest/kernels.toml)")
    sub = top.add_subparsers(dest="command", required=True)

    p = sub.add_parser("setup", help="install Debian packages and the "
                                     "deb-src entry (idempotent)")
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser("build", help="build kernels, modules, agent and "
                                     "initramfs into the cache")
    p.add_argument("what", nargs="?", default="all",
                   choices=("all", "kernels", "agent", "qemu", "fixtures",
                            "fetch"),
                   help="fetch: only what the kernels need from the "
                        "network (Debian's kernel packages, the suites' "
                        "build chroots), building nothing")
    p.add_argument("--kernel", action="extend", nargs="+", metavar="K")
    p.add_argument("--arch", metavar="A", help=ARCH_HELP)
    p.set_defaults(func=cmd_build)

    for name, func, helptext in (
            ("run", cmd_run, "boot the kernel x device matrix and judge "
                             "every check"),
            ("test", cmd_test, "unit tests, then the e2e matrix; ends "
                               "with 'N passed, N failed'")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--kernel", action="extend", nargs="+", metavar="K",
                       help="kernels.toml entries, or `all` (default: "
                            "every entry not marked default = false; "
                            "`test`: all)")
        p.add_argument("--arch", metavar="A", help=ARCH_HELP)
        p.add_argument("--device", action="extend", nargs="+", metavar="D",
                       help="device rows (name or name/wrapper)")
        p.add_argument("--wrapper", action="extend", nargs="+", metavar="W",
                       help="wrapper columns: " + ", ".join(
                           devices.WRAPPERS))
        p.add_argument("--check", action="extend", nargs="+", metavar="C")
        p.add_argument("--kernel-tree", type=pathlib.Path, metavar="DIR",
                       action="append",
                       help="also run this kernel build folder of your own "
                            "(arch/x86/boot/bzImage, .config, "
                            "Module.symvers, modules built); without "
                            "--kernel, only it")
        p.add_argument("--kernel-tree-policy", metavar="POLICY",
                       help="the taint policy of the --kernel-tree "
                            "kernels (default: from their version; 2.6.25 "
                            "and later: 2.6.25-rc4)")
        p.add_argument("--driver", type=pathlib.Path, metavar="PATH.inf",
                       help="run your own Windows driver: the .inf and the "
                            ".sys beside it, on the QEMU NIC whose PCI/USB "
                            "id the .inf names, with that NIC's in-tree "
                            "driver beside it (default checks: "
                            + ", ".join(userdriver.CHECKS) + ")")
        p.add_argument("--wrapper-src", type=pathlib.Path, metavar="DIR",
                       help="test this wrapper tree (classic layout: "
                            "driver/ built with make KBUILD=..., utils/ "
                            "with make) instead of wrapper/")
        p.add_argument("-j", "--jobs", type=int,
                       default=runner.default_jobs())
        p.add_argument("--timeout", type=float, default=GUEST_TIMEOUT_FLOOR,
                       help="seconds before a guest is killed, unless its "
                            "checks ask more (default "
                            f"{GUEST_TIMEOUT_FLOOR:.0f})")
        p.add_argument("--accel", choices=("auto", "tcg", "kvm"),
                       default="auto")
        p.add_argument("--clock", choices=clock.CLOCKS, default=clock.DEFAULT,
                       help="the guest clock (default icount: idle guest "
                            "time skipped; real time where icount cannot "
                            "keep the checks' meaning: KVM, slow debug "
                            "kernels, kernels without CONFIG_DEVPORT)")
        p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
        if name == "run":
            p.add_argument("--no-snapshots", action="store_true",
                           help="boot every guest; by default a guest is "
                                "restored from the saved boot of the same "
                                "kernel, initramfs and devices (saved by "
                                "the first run that boots it)")
            p.add_argument("--shard", metavar="I/N",
                           help="run only shard I of N: the cells split "
                                "deterministically, balanced by their "
                                "recorded durations (ndisbench merge "
                                "joins the shards)")
            p.add_argument("--durations", metavar="FILE|RUN|none",
                           help="with --shard: the cells' recorded "
                                "durations (default .ci/durations.json, "
                                "which every CI job reads alike; none: "
                                "the estimates per device kind)")
        p.set_defaults(func=func)

    p = sub.add_parser("bisect", help="the first commit of a wrapper "
                                      "tree's history whose verdict "
                                      "changed (a regression or a fix)")
    p.add_argument("--wrapper-src", required=True, metavar="REPO[:SUBDIR]",
                   help="a git repository (only read: no checkout) and "
                        "the wrapper tree's folder in it")
    p.add_argument("--good", required=True, metavar="REV",
                   help="the old state (passing or failing)")
    p.add_argument("--bad", required=True, metavar="REV",
                   help="the new state, which differs from the old")
    p.add_argument("--kernel", required=True, metavar="K")
    p.add_argument("--device", default="none", metavar="D",
                   help="one device row (default none)")
    p.add_argument("--check", action="extend", nargs="+", metavar="C",
                   help="the verdict of these checks (default: every "
                        "check of the cell; build: does the tree build, "
                        "no boot)")
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--accel", choices=("auto", "tcg", "kvm"),
                   default="auto")
    p.add_argument("--clock", choices=clock.CLOCKS, default=clock.DEFAULT)
    p.add_argument("--no-snapshots", action="store_true",
                   help="boot every guest (no saved boot restored)")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
    p.set_defaults(func=cmd_bisect)

    p = sub.add_parser("bench", help="wrapped devices vs their references, "
                                     "side by side in one run")
    p.add_argument("--kernel", nargs="+", default=["src-6.1"],
                   metavar="K",
                   help="the kernel(s) every device boots; several: their "
                        "rows side by side, e.g. src-6.1 src-6.1-i386 "
                        "(default src-6.1)")
    p.add_argument("--device", action="extend", nargs="+", metavar="D",
                   help="device/wrapper labels (default: e1000, "
                        "bcm43xx/ndiswrapper, rtl8187/ndiswrapper, "
                        "rtl8187/native)")
    p.add_argument("--rounds", type=int, default=3,
                   help="boots per device; medians are reported (default 3)")
    p.add_argument("--matrix", action="store_true",
                   help="also time the default matrix and the whole axis "
                        "(run --kernel all --arch all), warm, side by side")
    p.add_argument("--clocks", default=clock.DEFAULT, metavar="C[,C]",
                   help="--matrix: run it once per guest clock, side by "
                        "side (icount, realtime; default icount)")
    p.add_argument("--matrix-kernel", action="extend", nargs="+",
                   metavar="K", help="--matrix: only these kernels "
                                     "(default: the default matrix's)")
    p.add_argument("--matrix-jobs", type=int,
                   default=runner.default_jobs(), metavar="N",
                   help="--matrix: -j of its runs (default: the CPUs)")
    p.add_argument("--edit-cycle", action="store_true",
                   help="also time one wrapper .c edit: module rebuild "
                        "and one bcm43xx cell")
    p.add_argument("--profile", type=int, nargs="?", const=1000, default=0,
                   metavar="HZ",
                   help="the guest samples its CPU during each TCP stream "
                        "(HZ a second, default 1000; the kernel's "
                        "cpu-clock): bench.md shows where the time went")
    p.add_argument("--timeout", type=float, default=180.0)
    p.add_argument("--accel", choices=("auto", "tcg", "kvm"),
                   default="auto")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("pair", help="two guests on one air (two QEMUs "
                                    "linked): they ping each other")
    p.add_argument("--kernel", default="src-6.1",
                   help="the kernel both guests boot (default src-6.1)")
    p.add_argument("--a", default="rtl8187/ndiswrapper", metavar="D/W",
                   help="guest A, whose QEMU has the APs and slirp "
                        "(default rtl8187/ndiswrapper)")
    p.add_argument("--b", default="rtl8187/native", metavar="D/W",
                   help="guest B, joining A's air (default rtl8187/native)")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds before a guest is killed (default 300)")
    p.add_argument("--accel", choices=("auto", "tcg", "kvm"),
                   default="auto")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
    p.set_defaults(func=cmd_pair)

    p = sub.add_parser("soak", help="one guest for minutes of traffic, "
                                    "wrapper reloads and hot-unplugs: no "
                                    "oops, no leak, no RSS growth")
    p.add_argument("--kernel", default="src-6.1")
    p.add_argument("--device", default="rtl8187/ndiswrapper",
                   metavar="D/W", help="a wrapped device/wrapper label "
                                       "(default rtl8187/ndiswrapper)")
    p.add_argument("--minutes", type=float, default=10.0,
                   help="cycling time (default 10)")
    p.add_argument("--cycles", type=int, default=0,
                   help="stop after N cycles (default 0: when the time "
                        "is up); fewer fails the soak")
    p.add_argument("--accel", choices=("auto", "tcg", "kvm"),
                   default="auto")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
    p.set_defaults(func=cmd_soak)

    p = sub.add_parser("fuzz", help="coverage-guided fuzzing (libFuzzer) "
                                    "of the host parsers and, in a fuzzing "
                                    "QEMU, of the device models")
    p.add_argument("--minutes", type=float, default=10.0,
                   help="time for all targets, shared equally (default 10)")
    p.add_argument("--target", action="extend", nargs="+", metavar="T",
                   help="only these targets (default: every one found)")
    p.add_argument("--seed", type=int,
                   help="libFuzzer's -seed for every target (default: "
                        "random, printed)")
    p.add_argument("--replay", action="store_true",
                   help="run each corpus and regression input once "
                        "(tests/fuzz/corpus/, tests/fuzz/regress/) instead "
                        "of fuzzing")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT,
                   help="the fuzz-<stamp>/ folder goes here (default out/)")
    p.set_defaults(func=cmd_fuzz)

    p = sub.add_parser("list", help="kernels, policies, devices, checks")
    p.add_argument("--long", action="store_true",
                   help="each check described in full, one line each "
                        "(from its module's docstring), and each device "
                        "row with the checks that apply to it")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("report", help="re-render and print a run's results")
    p.add_argument("run", nargs="?", default="latest")
    p.add_argument("--by-kernel", action="store_true",
                   help="instead: per policy, the kernels by release and "
                        "every check that changes between adjacent ones "
                        "(exit 1 if one regressed)")
    p.add_argument("--wrapper", choices=devices.WRAPPERS,
                   help="--by-kernel: only the cells of this wrapper")
    p.add_argument("--phases", action="store_true",
                   help="instead: where the cells' time went, phase by "
                        "phase (their phases.json), with the idle share")
    p.add_argument("--kcidb", action="store_true",
                   help="instead: write the run as KernelCI KCIDB JSON "
                        "(schema v5.0, checked) to <run>/kcidb.json")
    p.add_argument("--kcidb-origin", default="ndisbench", metavar="NAME",
                   help="--kcidb: the origin of every id (your KCIDB "
                        "submitter name; default ndisbench)")
    p.add_argument("--kcidb-url", default="", metavar="URL",
                   help="--kcidb: where the run folder is published; "
                        "tests then link their serial.log and ktap.txt")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("merge", help="join the shard folders of one "
                                     "run --shard split into one run")
    p.add_argument("runs", nargs="+", metavar="RUN",
                   help="the shard run folders (or run ids under --out)")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT,
                   help="the merged run folder goes here (default out/)")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("durations", help="print a durations file (for run "
                                         "--shard) from run folders")
    p.add_argument("runs", nargs="*", metavar="RUN",
                   help="run folders or ids, oldest first (default: every "
                        "run under --out); the newest record of a cell "
                        "wins")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
    p.set_defaults(func=cmd_durations)

    p = sub.add_parser("cache-key", help="print the key CI saves the "
                                         "build cache under (changes with "
                                         "any build input)")
    p.set_defaults(func=cmd_cache_key)

    p = sub.add_parser("compare", help="what changed from run A to run B "
                                       "(exit 1 if something regressed)")
    p.add_argument("run_a", nargs="?", default="previous", metavar="RUN_A",
                   help="run id, folder, 'latest' or 'previous' "
                        "(default previous)")
    p.add_argument("run_b", nargs="?", default="latest", metavar="RUN_B",
                   help="the same (default latest)")
    p.add_argument("--out", type=pathlib.Path, default=paths.OUT)
    p.set_defaults(func=cmd_compare)
    return top


# Exit statuses (README "Exit status"); 0 and 1 are the command's own
# (1: a verdict failed, something regressed).
EXIT_BAD_INPUT = 2
EXIT_CRASH = 3
EXIT_INTERRUPTED = 130          # 128 + SIGINT; SIGTERM: 128 + 15


# The commands that fill the cache: after them its least recently used
# entries beyond NDISBENCH_CACHE_MB go.
CACHE_COMMANDS = frozenset({"build", "run", "test", "bench", "pair",
                            "soak", "fuzz", "bisect"})


def tidy_cache() -> None:
    try:
        gone = prune_cache(Cache(paths.cache_root()))
    except OSError as exc:
        say("cache", f"WARNING: not pruned: {exc}")
        return
    if gone:
        names = [f"{p.parent.name}/{p.name}" for p in gone]
        say("cache", f"{len(gone)} least recently used cache entry(ies) "
                     f"removed (NDISBENCH_CACHE_MB): {', '.join(names[:5])}"
                     + (" ..." if len(names) > 5 else ""))


def main(argv: Optional[List[str]] = None) -> int:
    args = parser().parse_args(argv)
    # SIGTERM ends the bench as Ctrl-C does: a run writes what finished.
    main_thread = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, proc.raise_terminated) \
        if main_thread else None
    try:
        if args.command in CACHE_COMMANDS:
            cache_budget(), free_floor()    # a bad value: before, not after
        code = args.func(args)
        if args.command in CACHE_COMMANDS:
            tidy_cache()
        return code
    except BenchError as exc:
        print(f"ndisbench: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:
        proc.cancel()           # no thread of the command starts another
        name = getattr(exc, "signal_name", "SIGINT")
        print(f"ndisbench: interrupted ({name})", file=sys.stderr)
        return 128 + int(getattr(signal, name))
    except BrokenPipeError:
        # `ndisbench list | head`: the reader is gone, nothing to report
        # (and stdout must not be flushed again at exit).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:    # noqa: BLE001 (the last resort)
        # Not a verdict (1), not bad input (2): CI must not read it as
        # either.
        traceback.print_exc()
        what = "the host failed" if isinstance(exc, OSError) else \
            "a bug of the bench"
        print(f"ndisbench: crashed ({what}): {type(exc).__name__}: {exc}",
              file=sys.stderr)
        return EXIT_CRASH
    finally:
        # No guest, build or tshark outlives the bench.
        proc.kill_all()
        if main_thread:
            signal.signal(signal.SIGTERM, before)
