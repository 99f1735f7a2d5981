"""The host's side of one guest while it runs: a sink per check that asks
for one (its byte count), the sinks of a caller's probe (soak: the bytes
of each stream), and QMP requests (hot-unplug, roaming). Each sink counts
only the cell's own QEMU."""
import socket
import threading
from typing import Callable, Dict, List, Mapping, Optional, Union

from ..checks.check import CUT_STREAM, DATAGRAMS, QMP_HOTPLUG, QMP_ROAM
from ..guest import air
from ..guest.qmp_requests import QmpRequests
from ..guest.sink import Owner, TcpSink, UdpSink, count_stream, from_owner
from .plan import CellPlan

LineHook = Callable[[str], Optional[str]]


class StreamSink(TcpSink):
    """TcpSink for many connections, one after the other: each one's byte
    count in accept order (`streams`), answered "received=<n>" when the
    guest half-closes; a connection cut short keeps its count so far."""

    def __init__(self, owner: Optional[Owner] = None) -> None:
        self.streams: List[int] = []
        self.lock = threading.Lock()
        self.workers: List[threading.Thread] = []
        super().__init__(owner)

    def _serve(self) -> None:
        me = ("127.0.0.1", self.port)
        while True:
            try:
                conn, peer = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            if not from_owner(self.owner, "tcp", peer, me):
                self.refused += 1
                conn.close()
                continue
            with self.lock:
                index = len(self.streams)
                self.streams.append(0)
            worker = threading.Thread(target=self._count,
                                      args=(conn, index), daemon=True)
            self.workers.append(worker)
            worker.start()

    def _count(self, conn: socket.socket, index: int) -> None:
        def arrived(n: int) -> None:
            with self.lock:
                self.streams[index] += n

        with conn:
            try:
                count_stream(conn, arrived)
            except OSError:
                pass

    def close(self) -> Optional[int]:
        """Stop accepting (shutdown wakes the blocked accept()); the bytes
        of all connections."""
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()
        self.thread.join(5)
        return sum(self.streams)


Sink = Union[TcpSink, UdpSink]


class QemuPid:
    """The cell's QEMU once it runs: the only peer its sinks count."""

    def __init__(self) -> None:
        self.pid: Optional[int] = None

    def started(self, pid: int) -> None:
        self.pid = pid

    def __call__(self) -> Optional[int]:
        return self.pid


def open_sinks(kinds: Mapping[str, str],
               owner: Optional[QemuPid] = None) -> Dict[str, Sink]:
    """A sink per check that asks for one (Needs.sinks: check -> kind)."""
    return {name: UdpSink(owner) if kind == DATAGRAMS else TcpSink(owner)
            for name, kind in kinds.items()}


def refused_peers(sinks: Dict[str, Sink]) -> Dict[str, int]:
    """Per check, what its sink refused (not from the cell's QEMU)."""
    return {name: s.refused for name, s in sinks.items() if s.refused}


def close_sinks(kinds: Mapping[str, str], sinks: Dict[str, Sink]
                ) -> Dict[str, Optional[int]]:
    """What each sink counted; a stream an unplug cut never ends, so what
    arrived counts."""
    counts = {name: sink.close() for name, sink in sinks.items()}
    for name, sink in sinks.items():
        if kinds.get(name) == CUT_STREAM and isinstance(sink, TcpSink):
            counts[name] = sink.count
    return counts


def qmp_requests(plan: CellPlan) -> Optional[QmpRequests]:
    """The host's QMP side of the checks (and the probe) that ask for
    one."""
    wanted = set(plan.needs.qmp)
    if plan.probe and plan.probe.hotplug:
        wanted.add(QMP_HOTPLUG)
    if not wanted:
        return None
    return QmpRequests(plan.device.hotplug if QMP_HOTPLUG in wanted else "",
                       air.ROAM_FROM.ident if QMP_ROAM in wanted else "")


def chain(*hooks: Optional[LineHook]) -> Optional[LineHook]:
    """One console line hook of several: the first note wins."""
    live = [h for h in hooks if h is not None]
    if not live:
        return None

    def on_line(text: str) -> Optional[str]:
        notes = [h(text) for h in live]
        return next((n for n in notes if n), None)
    return on_line


class Services:
    """Everything the host serves one guest: open() before it starts,
    close() once it has stopped (counts, refusals, streams, QMP errors)."""

    def __init__(self, plan: CellPlan) -> None:
        self.kinds = plan.needs.sinks
        self.qemu_pid = QemuPid()
        self.sinks: Dict[str, Sink] = {}
        self.streams: Dict[str, StreamSink] = {}
        self.plug: Optional[QmpRequests] = None
        # what close() found
        self.counts: Dict[str, Optional[int]] = {}
        self.refused: Dict[str, int] = {}
        self.stream_bytes: Dict[str, List[int]] = {}
        self.qmp_errors: List[str] = []
        try:
            self.sinks = open_sinks(self.kinds, self.qemu_pid)
            for name in plan.probe.streams if plan.probe else ():
                self.streams[name] = StreamSink(self.qemu_pid)
            self.plug = qmp_requests(plan)
        except BaseException:
            self.close()
            raise

    @property
    def ports(self) -> Dict[str, int]:
        """Each sink's port, by check (or probe sink) name."""
        out = {name: s.port for name, s in self.sinks.items()}
        out.update({name: s.port for name, s in self.streams.items()})
        return out

    def qemu_args(self) -> List[str]:
        return self.plug.qemu_args() if self.plug else []

    def on_line(self, caller: Optional[LineHook]) -> Optional[LineHook]:
        """The guest's console hook: QMP's requests, then the caller's."""
        return chain(self.plug.on_line if self.plug else None, caller)

    def close(self) -> None:
        """Stop serving; what was served stays readable. Again: nothing."""
        if self.sinks:
            self.counts = close_sinks(self.kinds, self.sinks)
            self.refused = refused_peers(self.sinks)
            self.sinks = {}
        for name, sink in self.streams.items():
            sink.close()
            self.stream_bytes[name] = list(sink.streams)
        self.streams = {}
        if self.plug:
            self.qmp_errors = list(self.plug.errors)
            self.plug.close()
            self.plug = None
