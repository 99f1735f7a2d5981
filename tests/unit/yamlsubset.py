"""A strict parser of the YAML subset our CI files use (the stdlib has no
YAML parser): block mappings and sequences indented with spaces, `- key:
value` items, flow sequences of scalars (`[1, 2]`), literal block scalars
(`|`), plain, 'single' and "double" quoted scalars, comments. Anything
else (tabs, anchors, aliases, tags, flow mappings, folded scalars, a
plain scalar with ": " inside, a duplicate key, an odd indentation) is a
YamlError naming the line, so a file that parses here means what the
structure test reads. yamllint (setup installs it) checks the files
against the full YAML grammar besides."""
import re
from typing import Any, Dict, List, Optional, Tuple


class YamlError(ValueError):
    pass


KEY_RE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*|'[^']*'|\"[^\"]*\")"
                    r":(?:\s+(.*))?$")
SPECIAL = ("&", "*", "!", "%", "@", "`", "{", ">", "?")


def strip_comment(text: str) -> str:
    """text without a trailing comment (a # at the start or after a
    blank, outside quotes)."""
    quote = ""
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"" and (i == 0 or text[i - 1] in " [,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1] == " "):
            return text[:i].rstrip()
    if quote:
        raise YamlError(f"unterminated {quote} quote")
    return text.rstrip()


def scalar(text: str, line: int) -> Any:
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise YamlError(f"line {line}: bad quoted scalar {text}")
        return text[1:-1].replace("''", "'")
    if text.startswith('"'):
        if not text.endswith('"') or len(text) < 2:
            raise YamlError(f"line {line}: bad quoted scalar {text}")
        body = text[1:-1]
        if re.search(r'\\[^"\\]', body):
            raise YamlError(f"line {line}: escape not in the subset")
        return body.replace('\\"', '"').replace("\\\\", "\\")
    if text.startswith("["):
        if not text.endswith("]"):
            raise YamlError(f"line {line}: unterminated flow sequence")
        inner = text[1:-1].strip()
        return [scalar(p.strip(), line) for p in inner.split(",")] \
            if inner else []
    if text.startswith(SPECIAL) or text.startswith(("- ", "|")):
        raise YamlError(f"line {line}: {text!r} is not in the subset")
    if ": " in text or text.endswith(":") or " #" in text:
        raise YamlError(f"line {line}: ambiguous plain scalar {text!r}")
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~"):
        return None
    return text


class Parser:
    def __init__(self, text: str) -> None:
        if "\t" in text:
            line = text[:text.index("\t")].count("\n") + 1
            raise YamlError(f"line {line}: tab")
        self.raw = text.splitlines()
        # self.toks: (indent, text, line number) of the lines outside
        # block scalars that are not blank or a comment; block scalars
        # read self.raw themselves.
        self.toks: List[Tuple[int, str, int]] = []
        self.pos = 0

    def parse(self) -> Any:
        if any(r.startswith(("---", "...")) for r in self.raw):
            raise YamlError("documents markers are not in the subset")
        self.toks = self.structure()
        if not self.toks:
            return None
        node = self.block(self.toks[0][0])
        if self.pos != len(self.toks):
            raise YamlError(f"line {self.toks[self.pos][2]}: bad indentation")
        return node

    def structure(self) -> List[Tuple[int, str, int]]:
        """The lines outside block scalars (whose lines are kept raw)."""
        toks: List[Tuple[int, str, int]] = []
        skip_until_indent: Optional[int] = None
        for n, raw in enumerate(self.raw, 1):
            if skip_until_indent is not None:
                if not raw.strip() or \
                        len(raw) - len(raw.lstrip()) > skip_until_indent:
                    continue
                skip_until_indent = None
            if not raw.strip():
                continue
            body = strip_comment(raw)
            if not body.strip():
                continue
            indent = len(body) - len(body.lstrip())
            toks.append((indent, body.strip(), n))
            if body.endswith(": |") or body.strip() in ("- |",) or \
                    body.endswith("- |"):
                skip_until_indent = indent
        return toks

    def literal(self, line: int, indent: int) -> str:
        """The block scalar after line `line` (1-based): every following
        raw line indented more than `indent`, blank lines included."""
        body: List[str] = []
        for raw in self.raw[line:]:
            if raw.strip() and len(raw) - len(raw.lstrip()) <= indent:
                break
            body.append(raw)
        while body and not body[-1].strip():
            body.pop()
        if not body:
            raise YamlError(f"line {line}: empty block scalar")
        cut = len(body[0]) - len(body[0].lstrip())
        for raw in body:
            if raw.strip() and len(raw) - len(raw.lstrip()) < cut:
                raise YamlError(f"line {line}: block scalar indentation")
        return "\n".join(r[cut:] for r in body) + "\n"

    def block(self, indent: int) -> Any:
        ind, text, _ = self.toks[self.pos]
        if ind != indent:
            raise YamlError(f"line {self.toks[self.pos][2]}: bad indentation")
        if text == "-" or text.startswith("- "):
            return self.sequence(indent)
        return self.mapping(indent)

    def value(self, text: Optional[str], indent: int, line: int,
              seq_ok: bool) -> Any:
        """What follows `key:` or `- ` on its line (None: nothing)."""
        if text == "|":
            return self.literal(line, indent)
        if text:
            return scalar(text, line)
        if self.pos < len(self.toks):
            ind, nxt, _ = self.toks[self.pos]
            if ind > indent:
                return self.block(ind)
            if seq_ok and ind == indent and (nxt == "-" or
                                             nxt.startswith("- ")):
                return self.sequence(indent)
        return None

    def sequence(self, indent: int) -> List[Any]:
        out: List[Any] = []
        while self.pos < len(self.toks):
            ind, text, line = self.toks[self.pos]
            if ind != indent or not (text == "-" or text.startswith("- ")):
                if ind > indent:
                    raise YamlError(f"line {line}: bad indentation")
                break
            rest = text[1:].strip()
            if rest and KEY_RE.match(rest):
                # "- key: value": a mapping whose keys are at rest's column
                col = indent + (len(text) - len(rest))
                self.toks[self.pos] = (col, rest, line)
                out.append(self.mapping(col))
                continue
            self.pos += 1
            out.append(self.value(rest or None, indent, line, False))
        return out

    def mapping(self, indent: int) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        while self.pos < len(self.toks):
            ind, text, line = self.toks[self.pos]
            if ind < indent:
                break
            if ind > indent:
                raise YamlError(f"line {line}: bad indentation")
            if text == "-" or text.startswith("- "):
                break
            m = KEY_RE.match(text)
            if not m:
                raise YamlError(f"line {line}: expected key: value, got "
                                f"{text!r}")
            key = m.group(1)
            if key[0] in "'\"":
                key = key[1:-1]
            if key in out:
                raise YamlError(f"line {line}: duplicate key {key!r}")
            self.pos += 1
            out[key] = self.value(m.group(2), indent, line, True)
        return out


def loads(text: str) -> Any:
    return Parser(text).parse()
