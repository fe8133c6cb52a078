"""Job-side client of blox's live protocol (version 2), standard library only.

A training script under `blox node` reports its progress and learns when to checkpoint and stop:

    import blox_client
    for it in range(start, total):
        train_step()
        if blox_client.report(it + 1):      # True: checkpoint now and exit 0
            save(blox_client.checkpoint_dir())
            sys.exit(0)

Outside blox (BLOX_SCHEDULER unset) report() returns False and does nothing, so the same script
runs anywhere; so it does on the parts of a multi-node job other than NODE_RANK 0 (is_leader()
is False there: only the leader reports and checkpoints). An unreachable scheduler is not an error either (a warning on stderr, False, and
a new connection at the next report); a refusal, or a scheduler that cannot prove it knows this
attempt's credential, raises BloxError.

The job proves itself with its attempt's credential (BLOX_JOB_CREDENTIAL, from its agent), never
the cluster's token: HMAC-SHA256 proofs both ways over both sides' nonces, then every message
sealed. The protocol: docs/live-protocol.md in the blox repository.
"""

import hashlib
import hmac
import json
import os
import socket
import struct
import sys

VERSION = 2
MAX_LINE = 1 << 20
TIMEOUT_S = 10.0

_SCHEDULER_PROOF = b"blox-live-2 scheduler proof\0"
_CLIENT_PROOF = b"blox-live-2 client proof\0"
_SESSION = b"blox-live-2 session\0"
_TO_SCHEDULER = b"blox-live-2 to scheduler\0"
_FROM_SCHEDULER = b"blox-live-2 from scheduler\0"


class BloxError(Exception):
    """The scheduler refused this job, could not prove itself, or answered something this client
    does not understand."""


class Client:
    """One job attempt's connection to the scheduler, opened at the first report."""

    def __init__(self, environ=None):
        env = os.environ if environ is None else environ
        # In a job placed on several nodes only NODE_RANK 0 reports; the other parts stop when
        # their gang is stopped (SIGTERM).
        self.leader = env.get("NODE_RANK", "0").strip() == "0"
        self.scheduler = (env.get("BLOX_SCHEDULER") or None) if self.leader else None
        self._checkpoint_dir = env.get("BLOX_CHECKPOINT_DIR") or None
        self._sock = None
        self._reader = None
        self._session = None
        if self.scheduler is None:
            return
        missing = [n for n in ("BLOX_JOB_CREDENTIAL", "BLOX_JOB_ID", "BLOX_ATTEMPT") if n not in env]
        if missing:
            raise BloxError("BLOX_SCHEDULER is set but %s is not" % ", ".join(missing))
        try:
            self._credential = bytes.fromhex(env["BLOX_JOB_CREDENTIAL"])
        except ValueError:
            self._credential = b""
        if len(self._credential) != 32:
            raise BloxError("BLOX_JOB_CREDENTIAL is not 64 hexadecimal digits")
        self.job = int(env["BLOX_JOB_ID"])
        self.attempt = int(env["BLOX_ATTEMPT"])
        self.run = env.get("BLOX_RUN") or None

    def checkpoint_dir(self):
        """The job's checkpoint directory on this node (kept across attempts); None outside blox."""
        return self._checkpoint_dir

    def report(self, iterations):
        """Reports the iterations done so far (cumulative); True means: checkpoint and exit 0 now."""
        if self.scheduler is None:
            return False
        try:
            if self._sock is None:
                self._connect()
            self._send({"type": "progress", "iterations": int(iterations)})
            answer = self._recv()
        except (OSError, EOFError) as e:
            return self._unreachable(e)
        if answer.get("type") != "ack" or not isinstance(answer.get("stop"), bool):
            self.close()
            raise BloxError("the scheduler answered progress with %r" % answer.get("type"))
        return answer["stop"]

    def close(self):
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = self._reader = self._session = None

    def _connect(self):
        host, _, port = self.scheduler.rpartition(":")
        sock = socket.create_connection((host.strip("[]"), int(port)), timeout=TIMEOUT_S)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock, self._reader = sock, sock.makefile("rb")
        nonce = os.urandom(32)
        hello = {"type": "hello", "version": VERSION, "role": "job", "nonce": nonce.hex(),
                 "job": self.job, "attempt": self.attempt}
        if self.run is not None:
            hello["run"] = self.run
        hello = json.dumps(hello, separators=(",", ":")).encode()
        self._sock.sendall(hello + b"\n")
        answer = self._parse(self._read_line())
        if answer.get("type") == "refused":
            self._refused(answer.get("reason"))
        if answer.get("type") != "challenge":
            self.close()
            raise BloxError("the scheduler answered hello with %r, not a challenge" % answer.get("type"))
        try:
            server_nonce = bytes.fromhex(answer.get("nonce", ""))
        except ValueError:
            server_nonce = b""
        if len(server_nonce) != 32:
            self.close()
            raise BloxError("the scheduler's challenge has no nonce of 64 hexadecimal digits")
        digest = hashlib.sha256(hello).digest()

        def mac(label):
            return hmac.new(self._credential, label + nonce + server_nonce + digest, hashlib.sha256).digest()

        if not hmac.compare_digest(mac(_SCHEDULER_PROOF).hex().encode(), str(answer.get("proof", "")).encode()):
            self.close()
            raise BloxError("the scheduler at %s could not prove that it holds this job's credential: "
                            "not your blox scheduler, or a credential not from its agent" % self.scheduler)
        self._sock.sendall(json.dumps({"type": "auth", "proof": mac(_CLIENT_PROOF).hex()},
                                      separators=(",", ":")).encode() + b"\n")
        self._session, self._sent, self._received = mac(_SESSION), 0, 0
        answer = self._recv()
        if answer.get("type") == "refused":
            self._refused(answer.get("reason"))
        if answer.get("type") != "welcome":
            self.close()
            raise BloxError("the scheduler answered the proof with %r" % answer.get("type"))

    def _refused(self, reason):
        self.close()
        raise BloxError("cannot report to the scheduler at %s: %s" % (self.scheduler, reason))

    def _seal(self, direction, number, body):
        message = direction + struct.pack(">Q", number) + body
        return hmac.new(self._session, message, hashlib.sha256).hexdigest().encode()

    def _send(self, message):
        body = json.dumps(message, separators=(",", ":")).encode()
        line = self._seal(_TO_SCHEDULER, self._sent, body) + b" " + body + b"\n"
        self._sent += 1
        self._sock.sendall(line)

    def _recv(self):
        line = self._read_line()
        seal, space, body = line.partition(b" ")
        if len(seal) != 64 or not space or not hmac.compare_digest(
                seal, self._seal(_FROM_SCHEDULER, self._received, body)):
            self.close()
            raise BloxError("protocol error: a message whose seal does not check out "
                            "(forged, changed, replayed or out of order)")
        self._received += 1
        return self._parse(body)

    def _read_line(self):
        while True:
            line = self._reader.readline(MAX_LINE + 1)
            if not line:
                raise EOFError("the scheduler closed the connection")
            if not line.endswith(b"\n"):
                self.close()
                raise BloxError("protocol error: a line longer than %d bytes or cut short" % MAX_LINE)
            if line.strip():
                return line[:-1]

    def _parse(self, body):
        try:
            message = json.loads(body)
        except ValueError as e:
            self.close()
            raise BloxError("protocol error: %s" % e)
        if not isinstance(message, dict):
            self.close()
            raise BloxError("protocol error: a message that is not a JSON object")
        return message

    def _unreachable(self, error):
        self.close()
        print("blox client: scheduler at %s: %s; carrying on" % (self.scheduler, error), file=sys.stderr)
        return False


_default = None


def _client():
    global _default
    if _default is None:
        _default = Client()
    return _default


def report(iterations):
    """Reports progress with the process's client (from the environment); True: stop now."""
    return _client().report(iterations)


def is_leader():
    """False on the parts of a multi-node job other than NODE_RANK 0, which neither report nor
    checkpoint."""
    return _client().leader


def checkpoint_dir():
    """The job's checkpoint directory (BLOX_CHECKPOINT_DIR), or None outside blox."""
    return _client().checkpoint_dir()
