"""The package's file reads and result writes (verifybench/_files.py): bounded reads that never
block on a FIFO, destinations that must be regular files or absent, temporaries never opened
through a link, and a case folder whose case.json is not a regular file refused at once."""
import os
import subprocess
import sys
import tempfile
import unittest

from verifybench import _files
from verifybench.casefile import Case


class FilesTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.tmp = self.dir.name

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_read_refuses_a_fifo_without_blocking(self):
        os.mkfifo(self.path("case.json"))
        with self.assertRaisesRegex(ValueError, "a FIFO, not a regular file"):
            _files.read_regular_file(self.path("case.json"), 100)

    def test_read_refuses_a_device_and_a_folder(self):
        with self.assertRaisesRegex(ValueError, "a character device"):
            _files.read_regular_file("/dev/zero", 100)
        with self.assertRaisesRegex(ValueError, "a directory"):
            _files.read_regular_file(self.tmp, 100)

    def test_read_refuses_a_file_over_the_cap(self):
        with open(self.path("big"), "wb") as f:
            f.write(b"x" * 101)
        with self.assertRaisesRegex(ValueError, "101 bytes; allowed: at most 100"):
            _files.read_regular_file(self.path("big"), 100)
        self.assertEqual(_files.read_regular_file(self.path("big"), 101), b"x" * 101)

    def test_case_folder_with_a_fifo_case_json_is_refused(self):
        os.mkfifo(self.path("case.json"))
        with self.assertRaisesRegex(ValueError, "case.json: a FIFO"):
            Case(self.tmp)

    def test_destinations_must_be_regular_or_absent(self):
        self.assertIsNone(_files.destination_error(self.path("new.json")))
        os.symlink("/dev/null", self.path("link.json"))
        self.assertIn("a symbolic link", _files.destination_error(self.path("link.json")))
        os.mkfifo(self.path("fifo.json"))
        self.assertIn("a FIFO", _files.destination_error(self.path("fifo.json")))
        self.assertIn("a character device", _files.destination_error("/dev/null"))

    def test_write_never_follows_a_planted_temporary(self):
        victim = self.path("victim")
        with open(victim, "w") as f:
            f.write("keep")
        # The old fixed temporary name, planted as a link: the writer's temporary is a new
        # file of a random name, so the link is never opened.
        os.symlink(victim, self.path("out.json.tmp"))
        _files.write_file_whole(self.path("out.json"), "{}")
        with open(victim) as f:
            self.assertEqual(f.read(), "keep")
        with open(self.path("out.json")) as f:
            self.assertEqual(f.read(), "{}")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["out.json", "out.json.tmp", "victim"])

    def test_peers_refuses_an_out_that_is_a_link_before_any_peer(self):
        os.symlink("/dev/null", self.path("peers.json"))
        run = subprocess.run([sys.executable, "-m", "verifybench.peers", self.tmp, "--out", self.path("peers.json")],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("a symbolic link", run.stderr)
        self.assertTrue(os.path.islink(self.path("peers.json")))


if __name__ == "__main__":
    unittest.main()
