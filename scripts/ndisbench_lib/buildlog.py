"""Why a build step failed: the lines of its log that name the cause.

The last line of a failed make or ninja run is nearly always noise
("make: Leaving directory ...", "ninja: build stopped"); the cause is
further up, in a form each tool prints its own way."""
import re
from typing import List, Pattern, Sequence, Tuple

# Colour escapes (gcc -fdiagnostics-color, meson on a tty).
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

# Most specific first; a category's lines keep their log order.
_COMPILER = [
    # file:line[:col]: [fatal ]error: ...
    re.compile(r"^[^\s:][^:]*:\d+(?::\d+)?: (?:fatal )?error: "),
    # the driver or cc1 itself: "x86_64-w64-mingw32-gcc: error: ..."
    re.compile(r"^(?!collect2:)[\w.+/-]*\b(?:gcc|cc1|cc|clang|g\+\+|c\+\+|"
               r"cpp|as)(?:-[\d.]+)?: (?:fatal )?error: "),
]
_MESON = [
    # meson ("meson.build:2:0: ERROR: ..."), QEMU's configure, GLib
    # assertions ("ERROR:file.c:12:func: assertion failed"); not modpost
    re.compile(r"\bERROR:(?!\s*modpost:)"),
    re.compile(r"\bDependency \"?[^\"\s]+\"? not found"),
]
_MISSING = [
    # dash/bash: "/bin/sh: 1: pahole: not found", "bash: line 1: x: command
    # not found", a script's "./gen.sh: 12: pahole: not found"
    re.compile(r"^\S+: (?:line )?\d+: [^:\s]+: (?:command )?not found$"),
    # make exec'ing the program itself
    re.compile(r"^make(?:\[\d+\])?: [^*:\s][^:]*: "
               r"(?:No such file or directory|Command not found)$"),
    re.compile(r"^(?:/usr/bin/)?env: \S+: No such file or directory$"),
    re.compile(r"^[\w.+-]+: (?:command )?not found$"),
]
_LD = [
    re.compile(r"undefined reference to "),
    re.compile(r"multiple definition of "),
    re.compile(r"\bld(?:\.\w+)?: (?:cannot find |error: )"),
    re.compile(r"relocation truncated to fit"),
    re.compile(r"^collect2: error: "),
]
_MODPOST = [re.compile(r"^(?:ERROR|FATAL): modpost: ")]
# make's failure lines, innermost first; not its progress notes
_MAKE = [re.compile(r"^make(?:\[\d+\])?: \*\*\* (?!Waiting for unfinished)"
                    r"(?!Deleting )")]

_CATEGORIES: Sequence[Tuple[Sequence[Pattern[str]], int]] = (
    (_COMPILER, 1),     # the first error; the rest often follow from it
    (_MESON, 4), (_MISSING, 4), (_LD, 4), (_MODPOST, 4),
    (_MAKE, 1),         # the innermost target
)

# Lines that end a failed run but say nothing about it.
_NOISE = re.compile(r"^(?:make(?:\[\d+\])?: (?:Entering|Leaving) directory"
                    r"|ninja: (?:build stopped|Entering directory)"
                    r"|A full log can be found at )")


def clean(text: str) -> List[str]:
    """The log's lines without colour escapes and trailing blanks."""
    return [_ANSI.sub("", line).rstrip() for line in text.splitlines()]


# gcc's "note: in expansion of macro" lines: the error above them sits in
# a header's macro, used at the note's place.
_MACRO_NOTE = re.compile(r": note: in (?:expansion|definition) of macro ")
_HEADER_AT = re.compile(r"^[^:]*\.h:\d+")


def _compiler_first(lines: List[str], hits: List[str]) -> List[str]:
    """The compiler errors to show: the first one, except that an error
    gcc places inside a header's macro (notes of its expansion follow it)
    yields to the next error in the source itself, the header's line then
    shown after it (ndiswrapper 1.63 on 6.12: proc.c:365, then list.h:776).
    """
    first = hits[0]
    at = lines.index(first)
    following = []
    for later in lines[at + 1:]:
        if any(p.search(later) for p in _COMPILER):
            break
        following.append(later)
    if not (_HEADER_AT.match(first) and
            any(_MACRO_NOTE.search(n) for n in following)):
        return [first]
    source = next((h for h in hits[1:] if not _HEADER_AT.match(h)), None)
    return [source, first] if source else [first]


def cause_lines(log_text: str) -> List[str]:
    """The lines of a failed step's output that name its cause, the most
    specific first: the first compiler error (of the source, not of a
    header macro it used), meson's (and QEMU configure's) ERROR lines, a
    missing program, ld's errors, modpost's, then make's innermost `***`
    line. [] when none is there."""
    lines = [line.strip() for line in clean(log_text)]
    found: List[str] = []
    for patterns, most in _CATEGORIES:
        hits = [line for line in lines
                if line and any(p.search(line) for p in patterns)]
        if patterns is _COMPILER and hits:
            hits = _compiler_first(lines, hits)
            most = len(hits)
        for line in hits[:most]:
            if line not in found:
                found.append(line)
    return found


def last_line(log_text: str) -> str:
    """The last line that is not a tool's sign-off: the fallback cause."""
    for line in reversed(clean(log_text)):
        line = line.strip()
        if line and not _NOISE.match(line):
            return line
    return ""
