"""The host end of the tcp check: a sink on 127.0.0.1 that the guest
reaches through slirp as 10.0.2.2. It counts what arrives, answers
"received=<n>" after the guest half-closes, and keeps its own count so both
ends can be compared.

Any local process can reach a loopback port, so a sink given its cell's
QEMU (owner: its pid once started) counts only that QEMU: slirp's socket
to the sink is one of QEMU's own fds. A peer is traced through
/proc/net/{tcp,udp} (its address -> the socket's inode) to the fds of the
owner. Anything else is refused and counted in `refused`, never as the
guest's traffic."""
import os
import socket
import struct
import threading
from typing import Callable, Dict, Optional, Tuple

ACCEPT_TIMEOUT = 600.0
READ_TIMEOUT = 120.0


def count_stream(conn: socket.socket, arrived: Callable[[int], None]) -> int:
    """Read conn until the guest half-closes, calling arrived(n) for each
    chunk (so a cut stream keeps its count so far), then answer
    "received=<total>"; the total. OSError: the stream broke."""
    conn.settimeout(READ_TIMEOUT)
    total = 0
    while True:
        data = conn.recv(1 << 16)
        if not data:
            break
        total += len(data)
        arrived(len(data))
    conn.sendall(f"received={total}\n".encode())
    return total


Owner = Callable[[], Optional[int]]
Address = Tuple[str, int]


def _address(text: str) -> Address:
    """A /proc/net/{tcp,udp} IPv4 address: "0100007F:1F90"."""
    host, port = text.split(":")
    return socket.inet_ntoa(struct.pack("<I", int(host, 16))), int(port, 16)


def socket_inode(table: str, local: Address,
                 remote: Optional[Address]) -> Optional[int]:
    """The inode of the socket bound to `local` (an unbound-address
    socket, 0.0.0.0, matches too) and, if given, connected to `remote`;
    table: "tcp" or "udp"."""
    try:
        with open(f"/proc/net/{table}", encoding="ascii") as rows:
            next(rows, None)
            for row in rows:
                cols = row.split()
                if len(cols) < 10:
                    continue
                here, there = _address(cols[1]), _address(cols[2])
                if here[1] != local[1] or here[0] not in (local[0],
                                                          "0.0.0.0"):
                    continue
                if remote is not None and there != remote:
                    continue
                inode = int(cols[9])
                if inode:
                    return inode
    except (OSError, ValueError):
        return None
    return None


def holds_socket(pid: int, inode: int) -> bool:
    """Whether process pid has socket `inode` open."""
    want = f"socket:[{inode}]"
    folder = f"/proc/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"{folder}/{name}") == want:
                return True
        except OSError:
            continue
    return False


def from_owner(owner: Optional[Owner], table: str, peer: Address,
               me: Optional[Address]) -> bool:
    """Whether the peer's socket is the owner's (no owner: anyone's)."""
    if owner is None:
        return True
    pid = owner()
    if pid is None:
        return False
    inode = socket_inode(table, peer, me)
    return inode is not None and holds_socket(pid, inode)


class TcpSink:
    def __init__(self, owner: Optional[Owner] = None) -> None:
        """owner: the pid of the only process whose connection counts
        (None until it runs); without one, the first connection counts."""
        self.owner = owner
        self.refused = 0        # connections not from the owner
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.settimeout(ACCEPT_TIMEOUT)
        self.port: int = self.listener.getsockname()[1]
        self.received: Optional[int] = None
        self.count = 0          # bytes so far, also of a broken stream
        self.conn: Optional[socket.socket] = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _accept(self) -> Optional[socket.socket]:
        """The owner's connection; others are closed and counted."""
        while True:
            try:
                conn, peer = self.listener.accept()
            except OSError:
                return None
            if from_owner(self.owner, "tcp", peer, ("127.0.0.1", self.port)):
                return conn
            self.refused += 1
            conn.close()

    def _serve(self) -> None:
        conn = self._accept()
        if conn is None:
            return
        self.conn = conn
        with conn:
            try:
                count_stream(conn, self._arrived)
            except OSError:
                pass
            self.received = self.count

    def _arrived(self, n: int) -> None:
        self.count += n

    def close(self) -> Optional[int]:
        """Stop listening; the byte count of the finished connection (a
        stream the guest never ended, e.g. cut by a hot-unplug, is shut
        down here: its bytes so far stay in self.count). shutdown() wakes
        an accept() still waiting (close() alone does not, on Linux)."""
        try:
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass            # not listening any more: nothing waits
        self.listener.close()
        self.thread.join(5)
        if self.thread.is_alive() and self.conn is not None:
            try:
                self.conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.thread.join(5)
        return self.received


class UdpSink:
    """Counts the datagrams the guest's udp test sends to 10.0.2.2:port."""

    def __init__(self, owner: Optional[Owner] = None) -> None:
        """owner: as TcpSink's; each sender address is traced once."""
        self.owner = owner
        self.refused = 0        # datagrams not from the owner
        self.senders: Dict[Address, bool] = {}
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.5)
        self.port: int = self.sock.getsockname()[1]
        self.count = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                _, sender = self.sock.recvfrom(2048)
            except socket.timeout:
                continue
            except OSError:
                return
            if self._counts(sender):
                self.count += 1
            else:
                self.refused += 1

    def _counts(self, sender: Address) -> bool:
        """Whether a sender is the owner; an answer is remembered once the
        owner runs (its sockets stay while it does)."""
        known = self.senders.get(sender)
        if known is not None:
            return known
        ok = from_owner(self.owner, "udp", sender, None)
        if self.owner is None or self.owner() is not None:
            self.senders[sender] = ok
        return ok

    def close(self) -> int:
        """Stop counting; the number of datagrams that arrived."""
        self.stop.set()
        self.thread.join(5)
        self.sock.close()
        return self.count

