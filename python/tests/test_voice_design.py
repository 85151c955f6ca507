"""VoiceDesign through the package: the same samples as the CLI."""

import shutil
import unittest

import numpy as np

import qwen3tts
from support import HELLO, cli_speak, model_dir, tmp_dir

MODEL = model_dir("tiny-voice_design")
INSTRUCT = "A deep, calm male voice."


class VoiceDesignTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = qwen3tts.Qwen3TTSModel.from_pretrained(MODEL)
        cls.tmp = tmp_dir()

    @classmethod
    def tearDownClass(cls):
        cls.model.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_greedy_equals_the_cli(self):
        wavs, sr = self.model.generate_voice_design(
            HELLO, INSTRUCT, language="english", do_sample=False, subtalker_dosample=False,
            max_new_tokens=9,
        )
        cli = cli_speak(self.tmp, MODEL, HELLO, "--instruct", INSTRUCT, "--language", "english",
                        "--greedy", "--max-frames", "8")
        self.assertEqual(sr, 24000)
        self.assertGreater(wavs[0].size, 0)
        np.testing.assert_array_equal(wavs[0], cli)

    def test_seeded_batch_equals_the_cli(self):
        texts = [HELLO, "Good morning."]
        wavs, _ = self.model.generate_voice_design(texts, [INSTRUCT, ""], seed=3,
                                                   max_new_tokens=7)
        self.assertEqual(len(wavs), 2)
        np.testing.assert_array_equal(
            wavs[0], cli_speak(self.tmp, MODEL, texts[0], "--instruct", INSTRUCT, "--seed", "3",
                               "--max-frames", "6"))
        np.testing.assert_array_equal(
            wavs[1], cli_speak(self.tmp, MODEL, texts[1], "--seed", "3", "--max-frames", "6"))

    def test_speaker_is_refused(self):
        with self.assertRaisesRegex(qwen3tts.UnsupportedError, "needs a custom_voice model"):
            self.model.generate_custom_voice(HELLO, "ryan")
        self.assertEqual(self.model.get_supported_speakers(), [])


if __name__ == "__main__":
    unittest.main()
