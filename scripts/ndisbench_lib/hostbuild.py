"""Host-side builds through meson (the guest agent, later host tools)."""
import pathlib

from . import paths
from .progress import Step
from .proc import run_logged

AGENT = paths.MESON_BUILD / "guest" / "agent" / "ndisbench-agent"


def meson_compile(target: str) -> None:
    log = paths.MESON_BUILD.parent / "build.log"
    if not (paths.MESON_BUILD / "build.ninja").exists():
        with Step("build", "meson setup build"):
            run_logged(["meson", "setup", str(paths.MESON_BUILD),
                        str(paths.REPO)], log, "meson setup", timeout=300)
    run_logged(["meson", "compile", "-C", str(paths.MESON_BUILD), target],
               log, f"meson compile {target}", timeout=600)


def build_agent() -> pathlib.Path:
    """The static guest agent (incremental: a no-op when up to date)."""
    meson_compile("ndisbench-agent")
    return AGENT
