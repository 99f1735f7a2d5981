"""Where things live: the source tree, the build cache, the run folders."""
import os
import pathlib

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
