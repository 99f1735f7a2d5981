"""The capture check: the air's radiotap pcap (wlan-air pcap=, timestamps
from QEMU's virtual clock) read back with tshark (Debian's Wireshark
dissectors): the file opens without warnings, and the station's way into
the BSS is there in order: beacons, probe request and response where
sent, authentication both ways, association request and a successful response,
then data both ways. Afterwards the capture is kept gzipped (Wireshark
opens .pcap.gz as it is)."""
import dataclasses
import gzip
import pathlib
import re
import shutil
import subprocess
from typing import List, Optional, Sequence, Tuple

from . import sandbox
from .air import PCAP_MAX, PCAP_RECORD_MAX
from .. import proc as children
from ..errors import BenchError

TSHARK = "tshark"
TIMEOUT_SECS = 120
FIELDS = ("frame.number", "wlan.fc.type_subtype", "wlan.sa", "wlan.da",
          "wlan.fixed.status_code", "radiotap.channel.freq")
# tshark's own complaint when run as root: not about the file.
ROOT_NOTE = "Running as user"
# A row of `-z expert`: count, group, protocol (may hold a space: "IEEE
# 802.11"), summary; the columns are at least two spaces apart.
EXPERT_ROW_RE = re.compile(r"^\s*(\d+)\s+(\S+)\s+(.+?)\s{2,}(.*)$")
TRAFFIC_GROUPS = ("Sequence",)

BEACON, PROBE_REQ, PROBE_RESP, AUTH = 0x08, 0x04, 0x05, 0x0b
ASSOC_REQ, ASSOC_RESP = 0x00, 0x01
DATA_SUBTYPES = (0x20, 0x28)        # data, QoS data


@dataclasses.dataclass(frozen=True)
class Frame:
    number: int
    subtype: int
    sa: str
    da: str
    status: Optional[int]
    freq: int = 0               # MHz, from radiotap (the sender's channel)


def _tshark(pcap: pathlib.Path, args: List[str]) -> Tuple[str, List[str]]:
    """tshark's output and its complaints (a damaged file makes it exit
    non-zero after printing what it could read: both are wanted). Its
    dissectors parse what the guest sent, so when the bench is root it
    runs as the unprivileged user (sandbox.py), reading the capture from
    stdin: it needs no access to the run folder."""
    if shutil.which(TSHARK) is None:
        raise BenchError("tshark missing: install it (scripts/ndisbench "
                         "setup)")
    try:
        with open(pcap, "rb") as src:
            res = children.run([TSHARK, "-r", "-", *args],
                               timeout=TIMEOUT_SECS, stdin=src,
                               **sandbox.run_as_user_kwargs())
    except OSError as exc:
        raise BenchError(f"tshark {pcap}: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"tshark {pcap.name}: timed out after "
                         f"{TIMEOUT_SECS}s") from exc
    errors = [line.strip() for line in res.stderr.splitlines()
              if line.strip() and not line.startswith(ROOT_NOTE)]
    if res.returncode != 0 and not errors:
        errors.append(f"tshark exited {res.returncode}")
    return res.stdout, errors


def _frame(line: str) -> Optional[Frame]:
    """One row of `-T fields` (FIELDS, tab-separated), or None."""
    cols = line.split("\t")
    if len(cols) != len(FIELDS) or not cols[0].isdigit():
        return None
    try:
        subtype = int(cols[1], 16)
    except ValueError:
        return None
    status = int(cols[4], 0) if cols[4] else None
    freq = int(cols[5]) if cols[5].isdigit() else 0
    return Frame(int(cols[0]), subtype, cols[2].lower(), cols[3].lower(),
                 status, freq)


# Every TCP payload on the air is a check's byte stream to a host sink on
# an ephemeral port, which may be a port some dissector claims: a sink on
# 34980 (EtherCAT's) had its stream dissected as malformed EtherCAT
# mailboxes. The payload is decoded as plain data; TCP itself is still
# checked.
TCP_AS_DATA = ("-d", "tcp.port==1-65535,data")


def read_tshark(pcap: pathlib.Path) -> Tuple[List[Frame], List[str]]:
    """The capture's frames (FIELDS) and what Wireshark would warn about
    in the file itself, from one tshark pass (each pass dissects every
    frame: megabytes of TCP): a damaged file, or expert items of warning
    level and above (malformed or undecodable frames, bad checksums, ...).
    tshark prints the fields, then the expert table after a line of '='.
    The Sequence group is TCP's own flow analysis (window full,
    retransmission): traffic behaviour, not a defect of the capture, so it
    is left out."""
    frames, problems, _ = _read_pass(pcap, FIELDS, [])
    return frames, problems


def _read_pass(pcap: pathlib.Path, fields: Sequence[str],
               options: List[str]) -> Tuple[List[Frame], List[str],
                                            List[str]]:
    """One tshark pass with fields (FIELDS first) and options: the
    frames, the problems (read_tshark) and each frame's row."""
    args = ["-T", "fields", "-E", "separator=/t"] + options + \
        list(TCP_AS_DATA)
    for field in fields:
        args += ["-e", field]
    out, problems = _tshark(pcap, args + ["-z", "expert,warn"])
    frames: List[Frame] = []
    rows: List[str] = []
    in_table = False
    for line in out.splitlines():
        if line.startswith("="):
            in_table = True
        elif not in_table:
            frame = _frame("\t".join(line.split("\t")[:len(FIELDS)]))
            if frame:
                frames.append(frame)
                rows.append(line)
        else:
            row = EXPERT_ROW_RE.match(line)
            if row and row.group(2) not in TRAFFIC_GROUPS:
                problems.append(f"{row.group(1)} x {row.group(2)}/"
                                f"{row.group(3)}: {row.group(4).strip()}")
    return frames, problems, rows


def _first(frames: List[Frame], subtypes, sa: str, da: str,
           after: int = 0) -> Optional[Frame]:
    """The first frame of a subtype from sa to da ("*": anyone) after a
    frame number."""
    subtypes = (subtypes,) if isinstance(subtypes, int) else subtypes
    return next((f for f in frames if f.subtype in subtypes and
                 f.number > after and sa in ("*", f.sa) and
                 da in ("*", f.da)), None)


def sequence_problems(frames: List[Frame], station: str, ap: str
                      ) -> List[str]:
    """The station's association with the AP, step by step, in order. A
    probe request is optional (a passive scan learns the BSS from its
    beacons), but one sent on the AP's channel before the authentication
    must be answered (probes on other channels go unanswered: scanning)."""
    station, ap = station.lower(), ap.lower()
    beacon = _first(frames, BEACON, ap, "*")
    if beacon is None:
        return [f"no beacon from {ap}"]
    auth = _first(frames, AUTH, station, ap)
    probe = next((f for f in frames if f.subtype == PROBE_REQ and
                  f.sa == station and f.freq == beacon.freq), None)
    if probe and (auth is None or probe.number < auth.number):
        answer = _first(frames, PROBE_RESP, ap, station, probe.number)
        if answer is None or (auth and answer.number > auth.number):
            return [f"no probe response ({ap} -> {station}) after the "
                    f"probe request in frame {probe.number}"]
    steps = (("authentication request", AUTH, station, ap),
             ("authentication response", AUTH, ap, station),
             ("association request", ASSOC_REQ, station, ap),
             ("association response", ASSOC_RESP, ap, station),
             ("data from the station", DATA_SUBTYPES, station, "*"),
             ("data to the station", DATA_SUBTYPES, "*", station))
    after = 0
    for name, subtypes, sa, da in steps:
        found = _first(frames, subtypes, sa, da, after)
        if found is None:
            return [f"no {name} ({station} / {ap}) after frame {after}"]
        if name == "association response" and found.status not in (0, None):
            return [f"association refused (status {found.status}) in "
                    f"frame {found.number}"]
        after = found.number
    return []


# -- a WPA2 network's data frames, decrypted with its passphrase ---------

WPA_FIELDS = ("frame.number", "wlan.fc.type_subtype", "wlan.bssid", "wlan.sa",
              "wlan.da", "wlan.fc.protected", "wlan_rsna_eapol.keydes.msgnr",
              "frame.protocols")
DATA_TYPE_FILTER = "wlan.fc.type == 2"


@dataclasses.dataclass(frozen=True)
class DataFrame:
    """A data frame of the capture as tshark shows it with the network's
    key: the Protected bit as sent, and the layers it found inside
    (frame.protocols: "...:wlan:llc:ip:icmp:data" once decrypted; an
    EAPOL-Key frame's message number of the 4-way handshake, 0 if none)."""
    number: int
    subtype: int
    bssid: str
    sa: str
    da: str
    protected: bool
    eapol_msg: int
    layers: Tuple[str, ...]

    @property
    def eapol(self) -> bool:
        return "eapol" in self.layers


def decryption_options(ssid: str, passphrase: str) -> List[str]:
    """tshark's preferences for decrypting a WPA2-PSK network: its IEEE
    802.11 dissector's decryption on, and one key of type wpa-pwd
    ("passphrase:SSID") in its 80211_keys table."""
    return ["-o", "wlan.enable_decryption:TRUE",
            "-o", f'uat:80211_keys:"wpa-pwd","{passphrase}:{ssid}"']


def _data_frame(line: str) -> Optional[DataFrame]:
    """One row of `-T fields` (WPA_FIELDS, tab-separated), or None."""
    cols = line.split("\t")
    if len(cols) != len(WPA_FIELDS) or not cols[0].isdigit():
        return None
    try:
        subtype = int(cols[1], 16)
    except ValueError:
        return None
    protected = cols[5].strip().lower() in ("1", "true")
    msg = int(cols[6]) if cols[6].strip().isdigit() else 0
    return DataFrame(int(cols[0]), subtype, cols[2].lower(), cols[3].lower(),
                     cols[4].lower(), protected, msg,
                     tuple(cols[7].strip().split(":")))


# FIELDS, then those of WPA_FIELDS it lacks: one pass reads both.
WPA_EXTRA = tuple(f for f in WPA_FIELDS if f not in FIELDS)
BAD_OPTION = "Invalid -o flag"


def read_tshark_wpa(pcap: pathlib.Path, ssid: str, passphrase: str
                    ) -> Tuple[List[Frame], List[str], List[DataFrame],
                               List[str]]:
    """read_tshark, and the network's data frames (decrypted where tshark
    has the keys: the passphrase and SSID, and the 4-way handshake in the
    capture), from one pass with the network's key. A key tshark refuses
    (it reads nothing then) is the network's problem; the file is read
    again without it."""
    frames, problems, rows = _read_pass(
        pcap, FIELDS + WPA_EXTRA, decryption_options(ssid, passphrase))
    refused = [p for p in problems if BAD_OPTION in p]
    if refused:
        frames, problems = read_tshark(pcap)
        return frames, problems, [], refused
    at = {f: i for i, f in enumerate(FIELDS + WPA_EXTRA)}
    wpa: List[DataFrame] = []
    for frame, row in zip(frames, rows):
        if frame.subtype >> 4 != 2:     # DATA_TYPE_FILTER
            continue
        cols = row.split("\t")
        data = _data_frame("\t".join(cols[at[f]] for f in WPA_FIELDS))
        if data:
            wpa.append(data)
    return frames, problems, wpa, []


def truncation(pcap: pathlib.Path, pcap_max: int) -> Optional[str]:
    """Why the capture may lack frames: it reached its cap (the air wrote
    no more); None when it is whole."""
    try:
        size = pcap.stat().st_size
    except OSError:
        return None
    if size + PCAP_RECORD_MAX <= pcap_max:
        return None
    return (f"the air capture stopped at its pcap-max of {pcap_max} bytes "
            f"({pcap.name}): later frames are missing")


def compress(pcap: pathlib.Path) -> pathlib.Path:
    """air.pcap -> air.pcap.gz (the TCP payloads compress well)."""
    dest = pcap.with_name(pcap.name + ".gz")
    with open(pcap, "rb") as src, gzip.open(dest, "wb", 6) as out:
        shutil.copyfileobj(src, out, 1 << 20)
    pcap.unlink()
    return dest


@dataclasses.dataclass(frozen=True)
class AirCapture:
    """The host's reading of a cell's air.pcap."""
    frames: Sequence[Frame] = ()
    file_problems: Sequence[str] = ()
    error: str = ""
    path: str = ""
    # A WPA2 network's data frames, read with its passphrase (read_tshark_wpa)
    wpa_frames: Sequence[DataFrame] = ()
    wpa_problems: Sequence[str] = ()


def read(pcap: pathlib.Path, wpa_network: Optional[Tuple[str, str]] = None,
         pcap_max: int = PCAP_MAX) -> AirCapture:
    """Read the air's capture with tshark, then keep it gzipped.
    wpa_network: (SSID, passphrase) of a WPA2 network whose data frames
    are read decrypted, in the same tshark pass (read_tshark_wpa).
    pcap_max: the air's cap; a capture that reached it cannot be judged
    (its error)."""
    if not pcap.exists():
        return AirCapture(error=f"QEMU wrote no {pcap.name}")
    cut = truncation(pcap, pcap_max)
    if cut:
        compress(pcap)
        return AirCapture(error=cut, path=pcap.name + ".gz")
    try:
        if wpa_network:
            frames, problems, wpa, wpa_problems = read_tshark_wpa(
                pcap, *wpa_network)
            air = AirCapture(frames, problems, path=pcap.name + ".gz",
                             wpa_frames=wpa, wpa_problems=wpa_problems)
        else:
            frames, problems = read_tshark(pcap)
            air = AirCapture(frames, problems, path=pcap.name + ".gz")
    except BenchError as exc:
        air = AirCapture(error=str(exc))
    compress(pcap)
    return air
