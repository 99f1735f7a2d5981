"""The host end of the tcp check: a sink on 127.0.0.1 that the guest
reaches through slirp as 10.0.2.2. It counts what arrives, answers
"received=<n>" after the guest half-closes, and keeps its own count so both
ends can be compared."""
import socket
import threading
from typing import Callable, Optional

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


class TcpSink:
    def __init__(self) -> None:
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

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
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

    def __init__(self) -> None:
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
                self.sock.recv(2048)
            except socket.timeout:
                continue
            except OSError:
                return
            self.count += 1

    def close(self) -> int:
        """Stop counting; the number of datagrams that arrived."""
        self.stop.set()
        self.thread.join(5)
        self.sock.close()
        return self.count

