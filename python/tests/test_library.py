"""The ctypes layer: the structs match the library's (defaults land in the right fields, the
last fields of the info and report hold the right values), the library is found or the error
lists where it was looked for, and the version."""

import ctypes
import os
import shutil
import subprocess
import sys
import unittest
import wave

import numpy as np

import qwen3tts
from qwen3tts import _lib
from support import FRAME, HELLO, model_dir, tmp_dir


class LibraryTest(unittest.TestCase):
    def test_options_defaults_land_in_their_fields(self):
        o = _lib.Options()
        _lib.lib().qwen3tts_options_init(None, ctypes.byref(o), ctypes.sizeof(o))
        self.assertEqual(o.struct_size, ctypes.sizeof(_lib.Options))
        self.assertEqual((o.talker.do_sample, o.talker.top_k), (1, 50))
        self.assertAlmostEqual(o.talker.temperature, 0.9, places=6)
        self.assertAlmostEqual(o.talker.top_p, 1.0)
        self.assertAlmostEqual(o.talker.repetition_penalty, 1.05, places=6)
        self.assertAlmostEqual(o.predictor.repetition_penalty, 1.0)
        self.assertEqual((o.predictor.do_sample, o.predictor.top_k), (1, 50))
        self.assertEqual((o.max_frames, o.has_seed, o.seed), (0, 0, 0))
        self.assertIsNone(o.codec_decode)
        self.assertEqual(o.segment_chars, 0)
        self.assertIsNone(o.codec_overlap)
        c = _lib.CloneOptions()
        _lib.lib().qwen3tts_clone_options_init(ctypes.byref(c), ctypes.sizeof(c))
        self.assertEqual((c.x_vector_only, c.max_seconds), (0, 60.0))
        lo = _lib.LoadOptions()
        _lib.lib().qwen3tts_load_options_init(ctypes.byref(lo), ctypes.sizeof(lo))
        self.assertEqual((lo.pretokenizer, lo.mmap), (None, 1))

    def test_info_and_report_fields_up_to_the_last(self):
        with qwen3tts.Model.from_pretrained(model_dir("tiny-custom_voice")) as model:
            info = model.info
            self.assertEqual((info.n_codebook, info.codebook_size, info.sample_rate),
                             (16, 2048, 24000))
            self.assertEqual(len(info.speakers), 9)
            self.assertTrue(info.takes_instruction)
            self.assertGreater(info.weight_bytes, 0)
            stream = model.stream_custom_voice(HELLO, "ryan", max_new_tokens=4, seed=11,
                                               do_sample=False, subtalker_dosample=False)
            n = sum(c.size for c in stream)
            r = stream.report
            self.assertEqual(r["samples"], n)
            self.assertEqual(r["samples"], r["frames"] * FRAME)
            self.assertEqual(r["seed"], 11)
            self.assertGreater(r["prompt_positions"], 9)
            self.assertEqual(r["reused_positions"], 0)
            # The same request again runs on the first one's keys and values (the last field).
            again = model.stream_custom_voice(HELLO, "ryan", max_new_tokens=4, seed=11,
                                              do_sample=False, subtalker_dosample=False)
            self.assertEqual(sum(c.size for c in again), n)
            self.assertEqual(again.report["reused_positions"], r["prompt_positions"] - 1)

    def test_write_audio(self):
        tmp = tmp_dir()
        samples = np.linspace(-1, 1, 4801, dtype=np.float32)
        qwen3tts.write_audio(os.path.join(tmp, "a.npy"), samples, 24000)
        np.testing.assert_array_equal(np.load(os.path.join(tmp, "a.npy")).reshape(-1), samples)
        qwen3tts.write_audio(os.path.join(tmp, "a.wav"), samples, 16000)
        with wave.open(os.path.join(tmp, "a.wav")) as w:
            self.assertEqual((w.getframerate(), w.getnframes(), w.getsampwidth()), (16000, 4801, 2))
            pcm = np.frombuffer(w.readframes(4801), dtype="<i2")
        self.assertEqual((pcm[0], pcm[2400], pcm[-1]), (-32767, 0, 32767))
        with self.assertRaisesRegex(qwen3tts.Qwen3TTSError, "unknown audio file extension '.xyz'"):
            qwen3tts.write_audio(os.path.join(tmp, "a.xyz"), samples)
        with self.assertRaisesRegex(ValueError, r"mono samples .* shape \(2, 3\)"):
            qwen3tts.write_audio(os.path.join(tmp, "b.wav"), np.zeros((2, 3)))
        shutil.rmtree(tmp)

    def test_version(self):
        self.assertRegex(qwen3tts.library_version(), r"^\d+\.\d+\.\d+ \(git ")
        self.assertTrue(os.path.exists(qwen3tts.library_path()) or "libqwen3tts" in
                        qwen3tts.library_path())

    def test_missing_library_lists_the_places_tried(self):
        env = dict(os.environ, QWEN3TTS_LIBRARY="/nonexistent/libqwen3tts.so")
        r = subprocess.run([sys.executable, "-c", "import qwen3tts; qwen3tts.library_version()"],
                           env=env, capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot load the qwen3tts shared library", r.stderr)
        self.assertIn("QWEN3TTS_LIBRARY: /nonexistent/libqwen3tts.so (no such file)", r.stderr)


if __name__ == "__main__":
    unittest.main()
