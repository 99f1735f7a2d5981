#!/usr/bin/env python3
"""install32.py [RUNNER] NDISWRAPPER32: the installer as an i386 guest
runs it (a gcc -m32 build of wrapper/utils/ndiswrapper.c with the loader
library; RUNNER, qemu-i386-static, runs it where the host cannot):
the i386 fixture driver installs (its NTx86 models, its PE32 .sys
trial-loaded at an i386 kernel address), the x86_64 build of the same
driver and an .inf with only NTamd64 models are refused naming both
architectures. The fixture build is $NDISBENCH_FIXTURES (unset: exit 77,
a skip, which fails the test command's stage). Before it, without
fixtures: what the i386 installer says of a driver's imports, by the
i386 module's export tables (an NDIS 6 miniport refused, the imports it
lacks named in one warning, its i386-only names known)."""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from peimage import I386, pe_image  # noqa: E402  (tests/unit/peimage.py)

SKIP = 77
X86_INF = ("[Version]\r\nSignature = \"$Windows NT$\"\r\n"
           "[Manufacturer]\r\nM = Mod, NTx86\r\n"
           "[Mod.NTx86]\r\nd = I, PCI\\VEN_10EC&DEV_8139\r\n"
           "[I.NTx86]\r\nCopyFiles = F\r\n[F]\r\nx.sys\r\n")


def brought(tool: list, tmpdir: pathlib.Path) -> int:
    """The one lines of the i386 installer; the number that failed."""
    failed = 0
    ndis6 = ("ndiswrapper: {sys}: an NDIS 6 miniport (imports "
             "NdisMRegisterMiniportDriver); NDIS wrappers load NDIS 5.x "
             "miniports\n")
    # install() has stdout, then stderr
    unknown = ("installed x: 1 hardware id(s), 1 driver file(s)\n"
               "ndiswrapper: warning: {sys}: imports 2 functions this "
               "wrapper does not provide: ntoskrnl.exe!KeBugCheckEx, "
               "HAL.dll!HalGetBusData\n")
    cases = (
        ({"NDIS.SYS": ["NdisMSleep", "NdisMRegisterMiniportDriver"]}, 1,
         ndis6),
        ({"ntoskrnl.exe": ["KefAcquireSpinLockAtDpcLevel", "KeBugCheckEx"],
          "HAL.dll": ["KfAcquireSpinLock", "HalGetBusData"]}, 0, unknown))
    for n, (imports, want_rc, want) in enumerate(cases):
        src = tmpdir / f"brought{n}"
        src.mkdir()
        (src / "x.inf").write_text(X86_INF)
        (src / "x.sys").write_bytes(pe_image(I386, imports))
        rc, out = install(tool, tmpdir / f"broughtroot{n}", src / "x.inf")
        ok = rc == want_rc and out == want.format(sys=src / "x.sys")
        print(("ok: " if ok else "FAIL: ") + f"imports {imports}")
        if not ok:
            print(f"  exit {rc}, output: {out.strip()}")
            failed += 1
    return failed


def install(tool: list, root: pathlib.Path, inf: pathlib.Path):
    res = subprocess.run([*tool, "--root", str(root), "-i", str(inf)],
                         capture_output=True, text=True, timeout=60,
                         check=False)
    return res.returncode, res.stdout + res.stderr


def main(argv: list) -> int:
    fixtures = os.environ.get("NDISBENCH_FIXTURES", "")
    if len(argv) not in (2, 3):
        print("usage: install32.py [RUNNER] NDISWRAPPER32", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        if brought(argv[1:], pathlib.Path(tmp)):
            return 1
    if not fixtures:
        print("NDISBENCH_FIXTURES is not set (a fixture build: make -C "
              "fixtures O=DIR)")
        return SKIP
    tool, fx = argv[1:], pathlib.Path(fixtures)
    failed = 0

    def check(cond: bool, what: str, out: str) -> None:
        nonlocal failed
        print(("ok: " if cond else "FAIL: ") + what)
        if not cond:
            print("  output: " + out.strip())
            failed += 1

    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = pathlib.Path(tmp)
        for arch, sub in (("i386", "i386/bcmwl"), ("x86_64", "bcmwl")):
            src = tmpdir / arch
            src.mkdir()
            for name in ("bcmwl.inf", "bcmwl.sys"):
                shutil.copy(fx / sub / name, src / name)
        rc, out = install(tool, tmpdir / "root", tmpdir / "i386/bcmwl.inf")
        confs = sorted(p.name for p in
                       (tmpdir / "root/etc/ndiswrapper/bcmwl").glob("*.conf"))
        check(rc == 0 and len(confs) == 4,
              f"the i386 bcmwl installs (exit {rc}, {len(confs)} confs)", out)
        rc, out = install(tool, tmpdir / "root2", tmpdir / "x86_64/bcmwl.inf")
        check(rc == 1 and "bcmwl.sys: 64-bit PE (x86_64) cannot run on "
              "i386" in out, "the x86_64 bcmwl.sys is refused", out)
        amd64 = tmpdir / "amd64only.inf"
        amd64.write_text("[Manufacturer]\r\nM = Mod, NTamd64\r\n"
                         "[Mod.NTamd64]\r\nd = I, PCI\\VEN_1234&DEV_5678\r\n"
                         "[I.NTamd64]\r\nCopyFiles = F\r\n[F]\r\nx.sys\r\n")
        rc, out = install(tool, tmpdir / "root3", amd64)
        check(rc == 1 and "amd64only.inf:1: no models for NTx86 (this i386 "
              "wrapper), only for NTamd64 (a 64-bit x86_64 driver)" in out,
              "an .inf with only NTamd64 models is refused", out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
