"""Where things live: the source tree, the build cache, the run folders."""
import datetime
import os
import pathlib
import stat

from .errors import BenchError

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNELS_TOML = REPO / "guest" / "kernels.toml"
EXPECTATIONS_TOML = REPO / "tests" / "e2e" / "expectations.toml"
OUT = REPO / "out"
MESON_BUILD = REPO / "build"


def cache_root() -> pathlib.Path:
    """NDISBENCH_CACHE, else ~/.cache/ndisbench; checked (trusted_cache)."""
    env = os.environ.get("NDISBENCH_CACHE")
    if env:
        return trusted_cache(pathlib.Path(env).expanduser().resolve())
    return trusted_cache(pathlib.Path.home() / ".cache" / "ndisbench")


def trusted_cache(root: pathlib.Path) -> pathlib.Path:
    """The cache holds what runs as root (compilers' output, kernels,
    chroots): made 0700 when new, tightened to 0700 when ours, refused
    when another user owns it or others may write to it (whatever they
    planted would be trusted by location)."""
    try:
        if not root.exists():
            root.mkdir(mode=0o700, parents=True)
        st = root.stat()
    except OSError as exc:
        raise BenchError(f"{root}: cannot make the cache: "
                         f"{exc.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise BenchError(f"{root}: the cache is not a folder")
    if st.st_uid != os.geteuid():
        raise BenchError(f"{root}: the cache belongs to uid {st.st_uid}, "
                         f"not to this user (uid {os.geteuid()})")
    mode = stat.S_IMODE(st.st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise BenchError(f"{root}: the cache is group- or world-writable "
                         f"(mode {mode & 0o777:04o}): anyone could plant "
                         f"builds in it; chmod 700 it")
    if mode != 0o700:
        try:
            os.chmod(root, 0o700)
        except OSError as exc:
            raise BenchError(f"{root}: cannot make the cache 0700: "
                             f"{exc.strerror}") from None
    return root


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
