"""Unit tests of blox_client that need no scheduler: python3 -m unittest test_blox_client"""

import os
import subprocess
import sys
import tempfile
import unittest

import blox_client

HERE = os.path.dirname(os.path.abspath(__file__))


class NoOpOutsideBlox(unittest.TestCase):
    def test_report_is_a_no_op_without_a_scheduler(self):
        client = blox_client.Client(environ={})
        self.assertFalse(client.report(10))
        self.assertIsNone(client.checkpoint_dir())

    def test_missing_or_malformed_variables_are_named(self):
        with self.assertRaisesRegex(blox_client.BloxError, "BLOX_JOB_CREDENTIAL"):
            blox_client.Client(environ={"BLOX_SCHEDULER": "127.0.0.1:1", "BLOX_JOB_ID": "1", "BLOX_ATTEMPT": "0"})
        env = {"BLOX_SCHEDULER": "127.0.0.1:1", "BLOX_JOB_CREDENTIAL": "zz", "BLOX_JOB_ID": "1", "BLOX_ATTEMPT": "0"}
        with self.assertRaisesRegex(blox_client.BloxError, "64 hexadecimal digits"):
            blox_client.Client(environ=env)

    def test_an_unreachable_scheduler_does_not_stop_training(self):
        env = {"BLOX_SCHEDULER": "127.0.0.1:1", "BLOX_JOB_CREDENTIAL": "ab" * 32, "BLOX_JOB_ID": "1",
               "BLOX_ATTEMPT": "0"}
        self.assertFalse(blox_client.Client(environ=env).report(1))

    def test_only_node_rank_0_of_a_gang_reports(self):
        env = {"BLOX_SCHEDULER": "127.0.0.1:1", "BLOX_JOB_CREDENTIAL": "zz", "BLOX_JOB_ID": "1", "BLOX_ATTEMPT": "0"}
        other = blox_client.Client(environ=dict(env, NODE_RANK="1"))
        self.assertFalse(other.leader)
        self.assertIsNone(other.scheduler)
        self.assertFalse(other.report(5))
        with self.assertRaisesRegex(blox_client.BloxError, "64 hexadecimal digits"):
            blox_client.Client(environ=dict(env, NODE_RANK="0"))

    def test_the_example_runs_outside_blox_and_resumes(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("BLOX_")}
        with tempfile.TemporaryDirectory() as tmp:
            run = lambda n: subprocess.run(
                [sys.executable, os.path.join(HERE, "examples", "train.py"), "--iterations", str(n),
                 "--ms-per-iteration", "0"], cwd=tmp, env=env, capture_output=True, text=True, check=True)
            self.assertIn("done: checkpoint at iteration 5", run(5).stdout)
            self.assertIn("resumed from iteration 5", run(8).stdout)
            with open(os.path.join(tmp, "checkpoint", "iteration")) as f:
                self.assertEqual(f.read(), "8")


if __name__ == "__main__":
    unittest.main()
