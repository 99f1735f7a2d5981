"""The host end of the tcp check: a sink on 127.0.0.1 that the guest
reaches through slirp as 10.0.2.2. It counts what arrives, answers
"received=<n>" after the guest half-closes, and keeps its own count so both
ends can be compared."""
import socket
import threading
from typing import Optional

ACCEPT_TIMEOUT = 600.0
READ_TIMEOUT = 120.0


class TcpSink:
    def __init__(self) -> None:
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.settimeout(ACCEPT_TIMEOUT)
        self.port: int = self.listener.getsockname()[1]
        self.received: Optional[int] = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(READ_TIMEOUT)
            count = 0
            try:
                while True:
                    data = conn.recv(1 << 16)
                    if not data:
                        break
                    count += len(data)
                self.received = count
                conn.sendall(f"received={count}\n".encode())
            except OSError:
                self.received = count

    def close(self) -> Optional[int]:
        """Stop listening; the byte count of the finished connection."""
        self.listener.close()
        self.thread.join(5)
        return self.received
