"""CustomVoice through the package: the same samples as the CLI for the same arguments, the
official batching and return shape, the model's facts, and clear errors."""

import json
import os
import shutil
import threading
import unittest

import numpy as np

import qwen3tts
from support import FRAME, HELLO, cli_speak, model_dir, tmp_dir

MODEL = model_dir("tiny-custom_voice")
GREEDY = dict(do_sample=False, subtalker_dosample=False)


class CustomVoiceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model = qwen3tts.Qwen3TTSModel.from_pretrained(MODEL, threads=2)
        cls.tmp = tmp_dir()

    @classmethod
    def tearDownClass(cls):
        cls.model.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_greedy_equals_the_cli(self):
        wavs, sr = self.model.generate_custom_voice(
            HELLO, speaker="ryan", language="English", max_new_tokens=9, **GREEDY
        )
        cli = cli_speak(self.tmp, MODEL, HELLO, "--speaker", "ryan", "--language", "english",
                        "--greedy", "--max-frames", "8")
        self.assertEqual(sr, 24000)
        self.assertIsInstance(wavs, list)
        self.assertEqual(len(wavs), 1)
        self.assertEqual(wavs[0].dtype, np.float32)
        self.assertEqual(wavs[0].ndim, 1)
        self.assertGreater(wavs[0].size, 0)
        np.testing.assert_array_equal(wavs[0], cli)

    def test_seeded_sampling_equals_the_cli(self):
        args = dict(temperature=0.7, top_k=20, top_p=0.9, repetition_penalty=1.1,
                    subtalker_temperature=0.8, subtalker_top_k=30, subtalker_top_p=0.95)
        wavs, _ = self.model.generate_custom_voice(
            HELLO, "vivian", max_new_tokens=9, seed=7, **args
        )
        cli = cli_speak(self.tmp, MODEL, HELLO, "--speaker", "vivian", "--max-frames", "8",
                        "--seed", "7", "--temperature", "0.7", "--top-k", "20", "--top-p", "0.9",
                        "--repetition-penalty", "1.1", "--subtalker-temperature", "0.8",
                        "--subtalker-top-k", "30", "--subtalker-top-p", "0.95")
        np.testing.assert_array_equal(wavs[0], cli)
        again, _ = self.model.generate_custom_voice(
            HELLO, "vivian", max_new_tokens=9, seed=7, **args
        )
        np.testing.assert_array_equal(again[0], wavs[0])

    def test_segments_equal_the_cli(self):
        text = "The first sentence is here. A second one follows it."
        wavs, _ = self.model.generate_custom_voice(
            text, "ryan", max_new_tokens=7, seed=5, segment_chars=30
        )
        cli = cli_speak(self.tmp, MODEL, text, "--speaker", "ryan", "--max-frames", "6",
                        "--seed", "5", "--segment-chars", "30")
        np.testing.assert_array_equal(wavs[0], cli)
        whole, _ = self.model.generate_custom_voice(text, "ryan", max_new_tokens=7, seed=5)
        self.assertFalse(np.array_equal(whole[0], wavs[0]))
        beside, _ = self.model.generate_custom_voice(
            text, "ryan", max_new_tokens=7, seed=5, segment_chars=30, codec_overlap="on"
        )
        np.testing.assert_array_equal(beside[0], wavs[0])
        with self.assertRaisesRegex(qwen3tts.InvalidArgumentError, "unknown codec overlap 'x'"):
            self.model.generate_custom_voice(text, "ryan", max_new_tokens=7, codec_overlap="x")

    def test_repetition_penalty_equals_the_cli(self):
        # The tiny model repeats codes only after a few dozen frames, hence 40 of them.
        wavs, _ = self.model.generate_custom_voice(
            HELLO, "vivian", max_new_tokens=41, repetition_penalty=5.0, **GREEDY
        )
        cli = cli_speak(self.tmp, MODEL, HELLO, "--speaker", "vivian", "--greedy",
                        "--max-frames", "40", "--repetition-penalty", "5")
        np.testing.assert_array_equal(wavs[0], cli)
        plain, _ = self.model.generate_custom_voice(
            HELLO, "vivian", max_new_tokens=41, repetition_penalty=1.0, **GREEDY
        )
        self.assertFalse(np.array_equal(plain[0], wavs[0]))

    def test_streaming_text_layout_equals_the_cli(self):
        wavs, _ = self.model.generate_custom_voice(
            HELLO, "ryan", non_streaming_mode=False, max_new_tokens=9, **GREEDY
        )
        cli = cli_speak(self.tmp, MODEL, HELLO, "--speaker", "ryan", "--greedy",
                        "--max-frames", "8", "--text-layout", "streaming")
        np.testing.assert_array_equal(wavs[0], cli)
        default, _ = self.model.generate_custom_voice(HELLO, "ryan", max_new_tokens=9, **GREEDY)
        self.assertFalse(np.array_equal(default[0], wavs[0]))

    def test_instruct_equals_the_cli(self):
        wavs, _ = self.model.generate_custom_voice(
            HELLO, "ryan", "english", "Speak angrily.", max_new_tokens=9, **GREEDY
        )
        cli = cli_speak(self.tmp, MODEL, HELLO, "--speaker", "ryan", "--language", "english",
                        "--instruct", "Speak angrily.", "--greedy", "--max-frames", "8")
        np.testing.assert_array_equal(wavs[0], cli)

    def test_max_new_tokens_bounds_the_frames(self):
        wavs, _ = self.model.generate_custom_voice(HELLO, "ryan", max_new_tokens=4, **GREEDY)
        self.assertLessEqual(wavs[0].size, 3 * FRAME)
        with self.assertRaisesRegex(ValueError, "max_new_tokens must be at least 2"):
            self.model.generate_custom_voice(HELLO, "ryan", max_new_tokens=1)

    def test_batch_is_a_list_of_the_single_results(self):
        texts = [HELLO, "Good morning."]
        wavs, sr = self.model.generate_custom_voice(
            texts, speaker=["ryan", "serena"], language="english", max_new_tokens=6, **GREEDY
        )
        self.assertEqual(len(wavs), 2)
        for text, speaker, wav in zip(texts, ["ryan", "serena"], wavs):
            alone, _ = self.model.generate_custom_voice(
                text, speaker, "english", max_new_tokens=6, **GREEDY
            )
            np.testing.assert_array_equal(wav, alone[0])
        with self.assertRaisesRegex(ValueError, "Batch size mismatch: text=2, language=3"):
            self.model.generate_custom_voice(texts, "ryan", language=["english"] * 3)

    def test_threads_at_once_give_the_serial_result(self):
        expected, _ = self.model.generate_custom_voice(HELLO, "ryan", max_new_tokens=6, **GREEDY)
        results = [None] * 3

        def work(i):
            try:
                results[i] = self.model.generate_custom_voice(
                    HELLO, "ryan", max_new_tokens=6, **GREEDY
                )[0][0]
            except qwen3tts.Qwen3TTSError as e:
                results[i] = e

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for r in results:
            self.assertIsInstance(r, np.ndarray, msg=str(r))
            np.testing.assert_array_equal(r, expected[0])

    def test_unknown_speaker_is_an_error_naming_it(self):
        with self.assertRaises(qwen3tts.Qwen3TTSError) as ctx:
            self.model.generate_custom_voice(HELLO, speaker="nobody")
        e = ctx.exception
        self.assertIsInstance(e, ValueError)  # as the official package raises
        self.assertEqual(e.code, 1)
        self.assertIn("unknown speaker 'nobody'", str(e))
        self.assertIn("ryan", str(e))

    def test_unknown_language_and_keyword_are_errors(self):
        with self.assertRaisesRegex(qwen3tts.InvalidArgumentError, "unknown language 'klingon'"):
            self.model.generate_custom_voice(HELLO, "ryan", language="klingon")
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'temprature'"):
            self.model.generate_custom_voice(HELLO, "ryan", temprature=0.5)
        with self.assertRaisesRegex(ValueError, r"'Hello\\x00' contains a NUL character"):
            self.model.generate_custom_voice("Hello\0", "ryan")
        with self.assertRaisesRegex(TypeError, "text must be a str or a list of str, got int"):
            self.model.generate_custom_voice(42, "ryan")

    def test_other_variants_are_refused(self):
        with self.assertRaisesRegex(qwen3tts.UnsupportedError, "needs a voice_design model"):
            self.model.generate_voice_design(HELLO, "A calm voice.")
        with self.assertRaisesRegex(ValueError, "needs a base model"):
            self.model.generate_voice_clone(HELLO, ref_audio="x.wav", x_vector_only_mode=True)

    def test_model_facts_are_the_checkpoint_config(self):
        with open(os.path.join(MODEL, "config.json")) as f:
            talker = json.load(f)["talker_config"]
        self.assertEqual(self.model.get_supported_speakers(), sorted(talker["spk_id"]))
        languages = ["auto"] + [l for l in talker["codec_language_id"] if "dialect" not in l]
        self.assertEqual(self.model.get_supported_languages(), sorted(languages))
        self.assertEqual(self.model.model.tts_model_type, "custom_voice")
        self.assertEqual(self.model.info.n_codebook, 16)
        self.assertEqual(self.model.info.codebook_size, 2048)
        self.assertEqual(self.model.info.sample_rate, 24000)
        self.assertEqual(dict(zip(self.model.info.speakers, self.model.info.speaker_dialects))[
            "dylan"], "beijing_dialect")
        with open(os.path.join(MODEL, "generation_config.json")) as f:
            config = json.load(f)
        self.assertEqual(self.model.generate_defaults, config)


class LoadTest(unittest.TestCase):
    def test_missing_directory_is_an_error_naming_it(self):
        with self.assertRaises(qwen3tts.Qwen3TTSError) as ctx:
            qwen3tts.Qwen3TTSModel.from_pretrained("/nonexistent/qwen3tts-model")
        self.assertIn("/nonexistent/qwen3tts-model", str(ctx.exception))

    def test_quant_equals_the_cli(self):
        # The tiny code predictor is narrower than one block of 32: quantize the talker only.
        with qwen3tts.Model.from_pretrained(MODEL, quant="talker=q8", threads=2) as model:
            wavs, _ = model.generate_custom_voice(
                HELLO, speaker="ryan", language="English", max_new_tokens=9, **GREEDY
            )
        tmp = tmp_dir()
        cli = cli_speak(tmp, MODEL, HELLO, "--speaker", "ryan", "--language", "english",
                        "--greedy", "--max-frames", "8", "--quant", "talker=q8")
        shutil.rmtree(tmp, ignore_errors=True)
        np.testing.assert_array_equal(wavs[0], cli)
        with qwen3tts.Model.from_pretrained(MODEL, threads=2) as model:
            bf16, _ = model.generate_custom_voice(
                HELLO, speaker="ryan", language="English", max_new_tokens=9, **GREEDY
            )
        self.assertFalse(np.array_equal(wavs[0], bf16[0]), "quant had no effect")
        with self.assertRaisesRegex(ValueError, "unknown quantization 'q3'"):
            qwen3tts.Model.from_pretrained(MODEL, quant="q3")

    def test_codec_conv_equals_the_cli(self):
        with qwen3tts.Model.from_pretrained(MODEL, codec_conv="winograd", threads=2) as model:
            self.assertEqual(model.info.codec_conv, "winograd")
            wavs, _ = model.generate_custom_voice(
                HELLO, speaker="ryan", language="English", max_new_tokens=9, **GREEDY
            )
        tmp = tmp_dir()
        cli = cli_speak(tmp, MODEL, HELLO, "--speaker", "ryan", "--language", "english",
                        "--greedy", "--max-frames", "8", "--codec-conv", "winograd")
        shutil.rmtree(tmp, ignore_errors=True)
        np.testing.assert_array_equal(wavs[0], cli)
        with qwen3tts.Model.from_pretrained(MODEL, threads=2) as model:
            direct, _ = model.generate_custom_voice(
                HELLO, speaker="ryan", language="English", max_new_tokens=9, **GREEDY
            )
        # The same codes; the waveforms differ by rounding only.
        self.assertFalse(np.array_equal(wavs[0], direct[0]), "codec_conv had no effect")
        self.assertEqual(wavs[0].shape, direct[0].shape)
        self.assertLess(np.abs(wavs[0] - direct[0]).max(), 1e-4)
        with self.assertRaisesRegex(ValueError, "unknown codec_conv 'fast'"):
            qwen3tts.Model.from_pretrained(MODEL, codec_conv="fast")

    def test_quant_and_transformers_arguments(self):
        qwen3tts.Model.from_pretrained(MODEL, quant="bf16").close()
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'colour'"):
            qwen3tts.Model.from_pretrained(MODEL, colour="blue")
        with self.assertWarnsRegex(UserWarning, "device_map='cuda:0' is ignored"):
            model = qwen3tts.Model.from_pretrained(MODEL, device_map="cuda:0")
        model.close()

    def test_closed_model_refuses_calls(self):
        model = qwen3tts.Model.from_pretrained(MODEL)
        with model:
            pass
        model.close()  # twice is fine
        with self.assertRaisesRegex(qwen3tts.Qwen3TTSError, "this model is closed"):
            model.generate_custom_voice(HELLO, "ryan", max_new_tokens=3)


if __name__ == "__main__":
    unittest.main()
