"""Streaming: the chunks of a stream are the generate_* output cut in pieces; closing a stream
early stops the generation and its worker thread; errors come out of the iteration."""

import shutil
import threading
import unittest

import numpy as np

import qwen3tts
from support import FOX, FRAME, HELLO, golden, model_dir, tmp_dir, write_wav16

GREEDY = dict(do_sample=False, subtalker_dosample=False)


def stream_threads():
    return [t for t in threading.enumerate() if t.name == "qwen3tts-stream"]


class StreamTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.custom = qwen3tts.Model.from_pretrained(model_dir("tiny-custom_voice"))
        cls.tmp = tmp_dir()

    @classmethod
    def tearDownClass(cls):
        cls.custom.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_chunks_concatenate_to_the_whole(self):
        whole, _ = self.custom.generate_custom_voice(HELLO, "ryan", max_new_tokens=9, seed=5)
        stream = self.custom.stream_custom_voice(HELLO, "ryan", max_new_tokens=9, seed=5)
        self.assertEqual(stream.sample_rate, 24000)
        chunks = list(stream)
        self.assertGreater(len(chunks), 1)
        for c in chunks:
            self.assertEqual(c.dtype, np.float32)
            self.assertEqual(c.ndim, 1)
        np.testing.assert_array_equal(np.concatenate(chunks), whole[0])
        self.assertEqual(stream.report["seed"], 5)
        self.assertEqual(stream.report["samples"], whole[0].size)
        self.assertEqual(stream.report["cancelled"], 0)

    def test_closing_early_stops_the_generation(self):
        with self.custom.stream_custom_voice(HELLO, "ryan", max_new_tokens=200, **GREEDY) as s:
            first = next(s)
        self.assertEqual(first.size, FRAME)
        self.assertEqual(s.report["cancelled"], 1)
        self.assertLess(s.report["frames"], 199)
        self.assertEqual(stream_threads(), [])
        self.assertRaises(StopIteration, next, s)

    def test_an_abandoned_stream_ends_its_worker(self):
        s = self.custom.stream_custom_voice(HELLO, "ryan", max_new_tokens=200, **GREEDY)
        next(s)
        thread = s._thread
        del s
        thread.join(timeout=60)
        self.assertFalse(thread.is_alive())

    def test_errors_come_out_of_the_iteration(self):
        stream = self.custom.stream_custom_voice(HELLO, "nobody")
        with self.assertRaisesRegex(qwen3tts.InvalidArgumentError, "unknown speaker 'nobody'"):
            next(stream)
        self.assertEqual(stream_threads(), [])
        with self.assertRaisesRegex(ValueError, "take one text"):
            self.custom.stream_custom_voice([HELLO, HELLO], "ryan")

    def test_voice_design_and_clone_streams(self):
        with qwen3tts.Model.from_pretrained(model_dir("tiny-voice_design")) as design:
            args = dict(language="english", max_new_tokens=5, **GREEDY)
            whole, _ = design.generate_voice_design(HELLO, "A calm voice.", **args)
            chunks = list(design.stream_voice_design(HELLO, "A calm voice.", **args))
            np.testing.assert_array_equal(np.concatenate(chunks), whole[0])
        ref = write_wav16(self.tmp + "/ref.wav", golden("tiny-base", "audio_ref_24k"), 24000)
        with qwen3tts.Model.from_pretrained(model_dir("tiny-base")) as base:
            args = dict(ref_audio=(ref, 24000), ref_text=FOX, max_new_tokens=5, **GREEDY)
            whole, _ = base.generate_voice_clone(HELLO, **args)
            chunks = list(base.stream_voice_clone(HELLO, **args))
            np.testing.assert_array_equal(np.concatenate(chunks), whole[0])


if __name__ == "__main__":
    unittest.main()
