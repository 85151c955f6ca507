"""Ctrl-C during generate_*: the KeyboardInterrupt stops the generation at the next chunk
(not after the whole text), and the model serves the next call."""

import subprocess
import sys
import unittest

from support import HELLO, model_dir

CHILD = r"""
import os, signal, sys, threading
import qwen3tts
model = qwen3tts.Model.from_pretrained(sys.argv[1])
greedy = dict(do_sample=False, subtalker_dosample=False)
threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    # 30000 frames: about a quarter of an hour on the tiny model if nothing stopped it.
    model.generate_custom_voice(sys.argv[2], "vivian", max_new_tokens=30001, **greedy)
    print("finished")
except KeyboardInterrupt:
    print("interrupted")
wavs, _ = model.generate_custom_voice(sys.argv[2], "vivian", max_new_tokens=3, **greedy)
print("then", wavs[0].size)
"""


class InterruptTest(unittest.TestCase):
    def test_ctrl_c_stops_a_long_generation(self):
        # The timeout only catches a generation that was not stopped (it would run ~15 min).
        r = subprocess.run([sys.executable, "-c", CHILD, model_dir("tiny-custom_voice"), HELLO],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split("\n")[:2], ["interrupted", "then 3840"], r.stderr)


if __name__ == "__main__":
    unittest.main()
