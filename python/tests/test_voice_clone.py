"""Voice cloning (Base) through the package: from a WAV path, from (samples, rate) and from
base64 audio, in-context and x-vector only, each equal to the CLI's `--ref-audio`; prompts made
once and reused; Voice save/load round trips, also with the CLI's `.voice` files."""

import base64
import os
import shutil
import unittest

import numpy as np

import qwen3tts
from support import FOX, HELLO, cli_speak, golden, model_dir, run_cli, tmp_dir, write_wav16

MODEL = model_dir("tiny-base")
GEN = dict(language="english", do_sample=False, subtalker_dosample=False, max_new_tokens=9)
CLI_GEN = ("--language", "english", "--greedy", "--max-frames", "8")


class VoiceCloneTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = qwen3tts.Qwen3TTSModel.from_pretrained(MODEL)
        cls.tmp = tmp_dir()
        cls.ref_wav = os.path.join(cls.tmp, "ref.wav")
        cls.ref_samples = write_wav16(cls.ref_wav, golden("tiny-base", "audio_ref_24k"), 24000)
        cls.cli = {
            "icl": cli_speak(cls.tmp, MODEL, HELLO, "--ref-audio", cls.ref_wav,
                             "--ref-text", FOX, *CLI_GEN),
            "xvec": cli_speak(cls.tmp, MODEL, HELLO, "--ref-audio", cls.ref_wav,
                              "--x-vector-only", *CLI_GEN),
        }

    @classmethod
    def tearDownClass(cls):
        cls.model.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def clone(self, ref_audio, mode, **kwargs):
        if mode == "icl":
            kwargs.update(ref_text=FOX)
        else:
            kwargs.update(x_vector_only_mode=True)
        wavs, sr = self.model.generate_voice_clone(HELLO, ref_audio=ref_audio, **GEN, **kwargs)
        self.assertEqual(sr, 24000)
        self.assertEqual(len(wavs), 1)
        return wavs[0]

    def test_from_a_path_equals_the_cli(self):
        for mode in ("icl", "xvec"):
            with self.subTest(mode=mode):
                wav = self.clone(self.ref_wav, mode)
                self.assertGreater(wav.size, 0)
                np.testing.assert_array_equal(wav, self.cli[mode])
        self.assertFalse(np.array_equal(self.cli["icl"], self.cli["xvec"]))

    def test_from_samples_equals_the_cli(self):
        for mode in ("icl", "xvec"):
            with self.subTest(mode=mode):
                wav = self.clone((self.ref_samples, 24000), mode)
                np.testing.assert_array_equal(wav, self.cli[mode])
        # [samples, channels] is mixed to mono, as the official code does.
        stereo = np.stack([self.ref_samples, self.ref_samples], axis=1)
        np.testing.assert_array_equal(self.clone((stereo, 24000), "xvec"), self.cli["xvec"])

    def test_from_base64_equals_the_cli(self):
        with open(self.ref_wav, "rb") as f:
            data = base64.b64encode(f.read()).decode("ascii")
        np.testing.assert_array_equal(self.clone(data, "xvec"), self.cli["xvec"])
        wrapped = "\n".join(data[i : i + 76] for i in range(0, len(data), 76))
        np.testing.assert_array_equal(self.clone(wrapped, "xvec"), self.cli["xvec"])
        uri = "data:audio/wav;base64," + data
        np.testing.assert_array_equal(self.clone(uri, "icl"), self.cli["icl"])

    def test_prompt_made_once_equals_the_direct_call(self):
        voices = self.model.create_voice_clone_prompt(
            [self.ref_wav, self.ref_wav], ref_text=[FOX, None], x_vector_only_mode=[False, True]
        )
        self.assertEqual(len(voices), 2)
        self.assertTrue(voices[0].icl_mode)
        self.assertEqual(voices[0].ref_text, FOX)
        self.assertTrue(voices[1].x_vector_only_mode)
        self.assertIsInstance(voices[0], qwen3tts.VoiceClonePromptItem)
        wavs, _ = self.model.generate_voice_clone([HELLO, HELLO], voice_clone_prompt=voices, **GEN)
        np.testing.assert_array_equal(wavs[0], self.cli["icl"])
        np.testing.assert_array_equal(wavs[1], self.cli["xvec"])
        # One prompt item serves every text of a batch; a Voice alone is taken too.
        wavs, _ = self.model.generate_voice_clone([HELLO, HELLO], voice_clone_prompt=voices[1:],
                                                  **GEN)
        for wav in wavs:
            np.testing.assert_array_equal(wav, self.cli["xvec"])
        wavs, _ = self.model.generate_voice_clone(HELLO, voice_clone_prompt=voices[0], **GEN)
        np.testing.assert_array_equal(wavs[0], self.cli["icl"])

    def test_voice_save_and_load_round_trip(self):
        (voice,) = self.model.create_voice_clone_prompt(self.ref_wav, ref_text=FOX)
        path = os.path.join(self.tmp, "fox.voice")
        voice.save(path)
        voice.close()
        with qwen3tts.Voice.load(path) as loaded:
            self.assertTrue(loaded.icl_mode)
            self.assertEqual(loaded.ref_text, FOX)
            wavs, _ = self.model.generate_voice_clone(HELLO, voice_clone_prompt=[loaded], **GEN)
            np.testing.assert_array_equal(wavs[0], self.cli["icl"])
        with self.assertRaisesRegex(qwen3tts.Qwen3TTSError, "this voice is closed"):
            self.model.generate_voice_clone(HELLO, voice_clone_prompt=[loaded], **GEN)

    def test_cli_voice_file_loads(self):
        path = os.path.join(self.tmp, "cli.voice")
        run_cli("voice", "--model", MODEL, "--ref-audio", self.ref_wav, "--x-vector-only",
                "--out", path)
        voice = qwen3tts.Voice.load(path)
        self.assertTrue(voice.x_vector_only_mode)
        wavs, _ = self.model.generate_voice_clone(HELLO, voice_clone_prompt=[voice], **GEN)
        np.testing.assert_array_equal(wavs[0], self.cli["xvec"])

    def test_bad_references_are_clear_errors(self):
        with self.assertRaisesRegex(ValueError, r"ref_text is required .*Bad index=0"):
            self.model.generate_voice_clone(HELLO, ref_audio=self.ref_wav)
        with self.assertRaisesRegex(ValueError, "is a URL; qwen3tts does not download"):
            self.model.create_voice_clone_prompt("https://example.com/a.wav",
                                                 x_vector_only_mode=True)
        with self.assertRaisesRegex(ValueError, r"pass a tuple \(audio, sr\)"):
            self.model.create_voice_clone_prompt(self.ref_samples, x_vector_only_mode=True)
        with self.assertRaisesRegex(ValueError, "Either `voice_clone_prompt` or `ref_audio`"):
            self.model.generate_voice_clone(HELLO)
        with self.assertRaisesRegex(ValueError, "dict of tensors is not supported"):
            self.model.generate_voice_clone(HELLO, voice_clone_prompt={"ref_code": [None]})
        missing = os.path.join(self.tmp, "missing.wav")
        with self.assertRaises(qwen3tts.Qwen3TTSError) as ctx:
            self.model.create_voice_clone_prompt(missing, x_vector_only_mode=True)
        self.assertIn(missing, str(ctx.exception))
        with self.assertRaises(qwen3tts.Qwen3TTSError) as ctx:
            qwen3tts.Voice.load(missing)
        self.assertIn(missing, str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
