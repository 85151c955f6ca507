"""The exact calls the golden data was made with, on the official qwen_tts package (index.json
"cases"), run unchanged against this package: the same waveforms (same length; max |diff|
≤ 3e-5, the tolerance of the library's own end-to-end golden test). This checks that
arguments, defaults and return values mean the same here as there."""

import ast
import json
import unittest

import numpy as np

import qwen3tts
from support import TEST_DATA, golden, model_dir

VARIANTS = ("tiny-custom_voice", "tiny-voice_design", "tiny-base")
TOLERANCE = 3e-5


def official_calls(variant):
    """(tag, method name, keyword arguments) of each greedy case (the sampled ones depend on
    torch's random generator)."""
    with open(TEST_DATA / "golden" / variant / "index.json", encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    for tag, case in cases.items():
        if "manual_seed" in case["call"]:
            continue
        call = ast.parse(case["call"], mode="eval").body
        assert isinstance(call, ast.Call) and not call.args, case["call"]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        yield tag, call.func.attr, kwargs


class OfficialCallsTest(unittest.TestCase):
    def test_every_greedy_case_gives_the_official_waveform(self):
        n = 0
        for variant in VARIANTS:
            with qwen3tts.Qwen3TTSModel.from_pretrained(model_dir(variant)) as tts:
                for tag, method, kwargs in official_calls(variant):
                    if "ref_audio" in kwargs:  # "<ndarray (82523,) @24000 Hz>" in the record
                        kwargs["ref_audio"] = (golden(variant, "audio_ref_24k"), 24000)
                    with self.subTest(case=tag):
                        wavs, sr = getattr(tts, method)(**kwargs)
                        ref = golden(variant, tag + "__wav").reshape(-1)
                        self.assertEqual(sr, 24000)
                        self.assertEqual(len(wavs), 1)
                        self.assertEqual(wavs[0].shape, ref.shape)
                        self.assertLessEqual(float(np.max(np.abs(wavs[0] - ref))), TOLERANCE)
                    n += 1
        self.assertEqual(n, 13)


if __name__ == "__main__":
    unittest.main()
