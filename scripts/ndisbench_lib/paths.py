"""Where things live: the source tree, the build cache, the run folders."""
import datetime
import os
import pathlib

from .errors import BenchError

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNELS_TOML = REPO / "guest" / "kernels.toml"
EXPECTATIONS_TOML = REPO / "tests" / "e2e" / "expectations.toml"
OUT = REPO / "out"
MESON_BUILD = REPO / "build"


def cache_root() -> pathlib.Path:
    """NDISBENCH_CACHE, else ~/.cache/ndisbench."""
    env = os.environ.get("NDISBENCH_CACHE")
    if env:
        return pathlib.Path(env).expanduser().resolve()
    return pathlib.Path.home() / ".cache" / "ndisbench"


def new_stamped_dir(parent: pathlib.Path, prefix: str = "",
                    what: str = "run") -> pathlib.Path:
    """A new folder <parent>/<prefix><date-time>[-n] (run, pair and soak
    folders), created."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for n in range(100):
        path = parent / (f"{prefix}{stamp}" + (f"-{n}" if n else ""))
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
    raise BenchError(f"{parent}: cannot create a {what} folder")
