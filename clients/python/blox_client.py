"""Job-side client of blox's live protocol (version 1), standard library only.

A training script under `blox node` reports its progress and learns when to checkpoint and stop:

    import blox_client
    for it in range(start, total):
        train_step()
        if blox_client.report(it + 1):      # True: checkpoint now and exit 0
            save(blox_client.checkpoint_dir())
            sys.exit(0)

Outside blox (BLOX_SCHEDULER unset) report() returns False and does nothing, so the same script
runs anywhere. An unreachable scheduler is not an error either (a warning on stderr, False, and
a new connection at the next report); a refusal (wrong token) raises BloxError.
The protocol: docs/live-protocol.md in the blox repository.
"""

import json
import os
import socket
import sys

VERSION = 1
MAX_LINE = 1 << 20
TIMEOUT_S = 10.0


class BloxError(Exception):
    """The scheduler refused this job or answered something this client does not understand."""


class Client:
    """One job's connection to the scheduler, opened at the first report."""

    def __init__(self, environ=None):
        env = os.environ if environ is None else environ
        self.scheduler = env.get("BLOX_SCHEDULER") or None
        self._checkpoint_dir = env.get("BLOX_CHECKPOINT_DIR") or None
        self._sock = None
        self._reader = None
        if self.scheduler is None:
            return
        missing = [n for n in ("BLOX_TOKEN", "BLOX_JOB_ID", "BLOX_ATTEMPT") if n not in env]
        if missing:
            raise BloxError("BLOX_SCHEDULER is set but %s is not" % ", ".join(missing))
        self.token = env["BLOX_TOKEN"]
        self.job = int(env["BLOX_JOB_ID"])
        self.attempt = int(env["BLOX_ATTEMPT"])

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
                self._sock = self._reader = None

    def _connect(self):
        host, _, port = self.scheduler.rpartition(":")
        sock = socket.create_connection((host.strip("[]"), int(port)), timeout=TIMEOUT_S)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock, self._reader = sock, sock.makefile("rb")
        self._send({"type": "hello", "version": VERSION, "role": "job", "token": self.token,
                    "job": self.job, "attempt": self.attempt})
        answer = self._recv()
        if answer.get("type") == "refused":
            self.close()
            raise BloxError("the scheduler at %s refused this job: %s" % (self.scheduler, answer.get("reason")))
        if answer.get("type") != "welcome":
            self.close()
            raise BloxError("the scheduler answered hello with %r" % answer.get("type"))

    def _send(self, message):
        self._sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def _recv(self):
        line = self._reader.readline(MAX_LINE + 1)
        if not line:
            raise EOFError("the scheduler closed the connection")
        if not line.endswith(b"\n"):
            self.close()
            raise BloxError("protocol error: a line longer than %d bytes or cut short" % MAX_LINE)
        try:
            return json.loads(line)
        except ValueError as e:
            self.close()
            raise BloxError("protocol error: %s" % e)

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


def checkpoint_dir():
    """The job's checkpoint directory (BLOX_CHECKPOINT_DIR), or None outside blox."""
    return _client().checkpoint_dir()
