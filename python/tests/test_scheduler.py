"""The Scheduler: requests run together give the audio of generate_custom_voice alone (same
seed), incremental text equals the whole text in the streaming layout (in segments too),
cancel ends a request, and a full queue raises BusyError."""

import unittest

import numpy as np

import qwen3tts
from support import FOX, HELLO, model_dir

GREEDY = dict(do_sample=False, subtalker_dosample=False)


class SchedulerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = qwen3tts.Model.from_pretrained(model_dir("tiny-custom_voice"), threads=2)

    @classmethod
    def tearDownClass(cls):
        cls.model.close()

    def test_requests_together_equal_each_alone(self):
        args = [(HELLO, "ryan", 3, 8), (FOX, "vivian", 4, 11)]
        with qwen3tts.Scheduler(self.model) as s:
            requests = [
                s.submit(text, speaker=spk, language="English", seed=seed, max_new_tokens=n)
                for text, spk, seed, n in args
            ]
            results = [r.wait() for r in requests]
        for (text, spk, seed, n), res in zip(args, results):
            wavs, _ = self.model.generate_custom_voice(
                text, spk, language="English", seed=seed, max_new_tokens=n
            )
            self.assertEqual(res.status, "completed")
            np.testing.assert_array_equal(res.audio, wavs[0])
            self.assertEqual(res.codes.shape, (res.report["frames"], 16))
            self.assertEqual(res.report["seed"], seed)

    def test_a_long_text_in_segments_equals_generate_custom_voice(self):
        text = "The first sentence is here. A second one follows it."
        kw = dict(language="English", seed=9, max_new_tokens=6, segment_chars=30)
        with qwen3tts.Scheduler(self.model) as s:
            long = s.submit(text, speaker="ryan", **kw)
            beside = s.submit(FOX, speaker="vivian", language="English", seed=4, max_new_tokens=8)
            res = long.wait()
            beside.wait()
        wavs, _ = self.model.generate_custom_voice(text, "ryan", **kw)
        self.assertEqual(res.status, "completed")
        np.testing.assert_array_equal(res.audio, wavs[0])
        whole, _ = self.model.generate_custom_voice(
            text, "ryan", language="English", seed=9, max_new_tokens=6
        )
        self.assertFalse(np.array_equal(whole[0], res.audio))

    def test_incremental_text_equals_the_whole_text_streaming(self):
        with qwen3tts.Scheduler(self.model) as s:
            r = s.submit("The qu", speaker="ryan", incremental=True, seed=5, max_new_tokens=9)
            for piece in ["ick brown", " fox jumps over ", "the lazy dog."]:
                r.push_text(piece)
            r.finish_text()
            pieces = r.wait()
        wavs, _ = self.model.generate_custom_voice(
            FOX, "ryan", non_streaming_mode=False, seed=5, max_new_tokens=9
        )
        np.testing.assert_array_equal(pieces.audio, wavs[0])

    def test_incremental_text_in_segments_equals_the_whole_text_in_segments(self):
        text = "The first sentence is here. A second one follows it."
        kw = dict(language="English", seed=9, max_new_tokens=6, segment_chars=30)
        with qwen3tts.Scheduler(self.model) as s:
            r = s.submit("The first sen", speaker="ryan", incremental=True, **kw)
            for piece in ["tence is here. A sec", "ond one follows it."]:
                r.push_text(piece)
            r.finish_text()
            res = r.wait()
        wavs, _ = self.model.generate_custom_voice(
            text, "ryan", non_streaming_mode=False, **kw
        )
        self.assertEqual(res.status, "completed")
        np.testing.assert_array_equal(res.audio, wavs[0])

    def test_flush_at_a_sentence_end_keeps_the_whole_text_audio(self):
        text = "Hello there. The quick brown fox."
        with qwen3tts.Scheduler(self.model) as s:
            r = s.submit("Hello there.", speaker="ryan", incremental=True, seed=3,
                         max_new_tokens=12)
            r.flush_text()
            r.push_text(" The quick brown fox.")
            r.finish_text()
            with self.assertRaises(qwen3tts.InvalidArgumentError) as e:
                r.flush_text()
            self.assertIn("flush_text: the text was already finished", str(e.exception))
            pieces = r.wait()
        wavs, _ = self.model.generate_custom_voice(
            text, "ryan", non_streaming_mode=False, seed=3, max_new_tokens=12
        )
        np.testing.assert_array_equal(pieces.audio, wavs[0])

    def test_cancel_and_busy(self):
        with qwen3tts.Scheduler(self.model, max_batch=1, max_queue=0) as s:
            r = s.submit(FOX * 3, speaker="ryan", max_new_tokens=400, **GREEDY)
            with self.assertRaises(qwen3tts.BusyError) as e:
                s.submit(HELLO, speaker="ryan")
            self.assertIn("the request queue is full", str(e.exception))
            self.assertEqual(e.exception.code, 7)
            r.cancel()
            res = r.wait()
            self.assertEqual(res.status, "cancelled")
            self.assertEqual(res.report["cancelled"], 1)
            self.assertLess(res.report["frames"], 399)
            self.assertTrue(r.done())

    def test_bad_options_raise_at_submit(self):
        with qwen3tts.Scheduler(self.model) as s:
            with self.assertRaises(qwen3tts.InvalidArgumentError) as e:
                s.submit(HELLO, speaker="nobody")
            self.assertIn("nobody", str(e.exception))
            self.assertEqual(s.load()["queued"] + s.load()["active"], 0)


if __name__ == "__main__":
    unittest.main()
