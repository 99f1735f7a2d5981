"""The host's sinks (guest/sink.py) count only the cell's QEMU: a local
process that reaches the port first is refused and counted as an
intruder, never as the guest's bytes or datagrams."""
import socket
import subprocess
import sys
import time
import unittest

import helpers  # noqa: F401  (import path)
from ndisbench_lib.guest import sink

# The cell's QEMU stand-in: waits for "go", then sends its bytes (tcp:
# half-closes and prints the sink's answer) or datagrams (udp: then keeps
# its socket until stdin closes, as QEMU keeps its own while the guest
# runs; the sink looks a sender up among the owner's sockets).
PEER = """
import socket, sys
kind, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sys.stdin.readline()
if kind == "tcp":
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"x" * n)
    s.shutdown(socket.SHUT_WR)
    print(s.recv(100).decode().strip(), flush=True)
else:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for _ in range(n):
        s.sendto(b"d", ("127.0.0.1", port))
    print("sent", flush=True)
    sys.stdin.read()
"""


class Owner:
    """What the cell knows of its QEMU: its pid once started."""

    def __init__(self):
        self.pid = None

    def __call__(self):
        return self.pid


def intrude(port: int, data: bytes) -> bytes:
    """Connect, send, half-close and read the answer as a local process
    other than QEMU would: b"" when refused (closed or reset)."""
    conn = socket.create_connection(("127.0.0.1", port))
    conn.settimeout(10)
    try:
        conn.sendall(data)
        conn.shutdown(socket.SHUT_WR)
        return conn.recv(100)
    except (ConnectionResetError, OSError):
        return b""
    finally:
        conn.close()


class SinkPeerTest(unittest.TestCase):
    def peer(self, kind, port, n):
        proc = subprocess.Popen([sys.executable, "-c", PEER, kind, str(port),
                                 str(n)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        self.addCleanup(proc.wait, 30)
        self.addCleanup(proc.kill)
        return proc

    def go(self, proc, wait=True):
        proc.stdin.write("go\n")
        proc.stdin.flush()
        out = proc.stdout.readline().strip()
        if wait:
            proc.wait(30)
        return out

    def test_tcp_intruder_is_refused_and_qemu_counted(self):
        owner = Owner()
        tcp = sink.TcpSink(owner=owner)
        self.addCleanup(tcp.close)
        qemu = self.peer("tcp", tcp.port, 5000)
        owner.pid = qemu.pid
        self.assertEqual(intrude(tcp.port, b"y" * 777), b"")
        self.assertEqual(self.go(qemu), "received=5000")
        self.assertEqual(tcp.close(), 5000)
        self.assertEqual(tcp.count, 5000)
        self.assertEqual(tcp.refused, 1)

    def test_tcp_before_qemu_started_nobody_counts(self):
        tcp = sink.TcpSink(owner=Owner())
        self.addCleanup(tcp.close)
        self.assertEqual(intrude(tcp.port, b"y" * 10), b"")
        deadline = time.monotonic() + 10
        while not tcp.refused and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIsNone(tcp.close())
        self.assertEqual((tcp.count, tcp.refused), (0, 1))

    def test_udp_intruder_datagrams_are_not_counted(self):
        owner = Owner()
        udp = sink.UdpSink(owner=owner)
        self.addCleanup(udp.close)
        qemu = self.peer("udp", udp.port, 20)
        owner.pid = qemu.pid
        intruder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.addCleanup(intruder.close)
        for _ in range(7):
            intruder.sendto(b"z", ("127.0.0.1", udp.port))
        self.assertEqual(self.go(qemu, wait=False), "sent")
        deadline = time.monotonic() + 10
        while udp.count + udp.refused < 27 and time.monotonic() < deadline:
            time.sleep(0.05)
        qemu.stdin.close()
        qemu.wait(30)
        self.assertEqual(udp.close(), 20)
        self.assertEqual(udp.refused, 7)

    def test_without_an_owner_every_peer_counts(self):
        tcp = sink.TcpSink()
        self.addCleanup(tcp.close)
        conn = socket.create_connection(("127.0.0.1", tcp.port))
        conn.sendall(b"a" * 12)
        conn.shutdown(socket.SHUT_WR)
        conn.settimeout(10)
        self.assertEqual(conn.recv(100), b"received=12\n")
        conn.close()
        self.assertEqual(tcp.close(), 12)
        self.assertEqual(tcp.refused, 0)


class CellSinksTest(unittest.TestCase):
    def test_a_cells_sinks_count_only_its_qemu(self):
        from ndisbench_lib.checks import registry
        from ndisbench_lib import cell
        owner = cell.services.QemuPid()
        kinds = {c: registry.get(c).sink for c in ("tcp", "udp")}
        sinks = cell.services.open_sinks(kinds, owner)
        self.addCleanup(cell.services.close_sinks, kinds, sinks)
        self.assertEqual({n: s.owner for n, s in sinks.items()},
                         {"tcp": owner, "udp": owner})
        self.assertEqual(intrude(sinks["tcp"].port, b"x"), b"")
        deadline = time.monotonic() + 10
        while not sinks["tcp"].refused and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(cell.services.refused_peers(sinks), {"tcp": 1})


if __name__ == "__main__":
    unittest.main()
