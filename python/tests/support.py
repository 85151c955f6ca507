"""Shared pieces of the package tests: where the test data, the CLI and the scratch directory are
(environment variables set by the ctest `python.package`, defaults for a checkout built into
build/), running the CLI, and writing a 16-bit WAV without any audio package."""

import os
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

_CHECKOUT = Path(__file__).resolve().parents[2]
TEST_DATA = Path(os.environ.get("QWEN3TTS_TEST_DATA", _CHECKOUT / "tests" / "data"))
CLI = os.environ.get("QWEN3TTS_CLI", str(_CHECKOUT / "build" / "qwen3tts"))

FOX = "The quick brown fox jumps over the lazy dog."
HELLO = "Hello world, this is a test."
FRAME = 1920  # samples per codec frame (24 kHz, 12.5 frames/s)


def model_dir(name):
    return str(TEST_DATA / "models" / name)


def golden(model, name):
    return np.load(TEST_DATA / "golden" / model / (name + ".npy"))


def tmp_dir():
    base = os.environ.get("QWEN3TTS_TEST_TMP")
    if base:
        os.makedirs(base, exist_ok=True)
    return tempfile.mkdtemp(prefix="python_", dir=base)


def run_cli(*args):
    """Runs the qwen3tts CLI; returns its stderr, fails the test on a non-zero exit."""
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(
            "qwen3tts %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr)
        )
    return r.stderr


def cli_speak(tmp, model, text, *args):
    """Samples of `qwen3tts speak` (qwen2 pre-tokeniser, the C API default) as float32."""
    out = os.path.join(tmp, "cli.npy")
    run_cli("speak", "--model", model, "--text", text, "--pretokenizer", "qwen2",
            "--format", "npy", "--out", out, *args)
    samples = np.load(out)
    assert samples.dtype == np.float32, samples.dtype
    return samples.reshape(-1)


def write_wav16(path, samples, rate):
    """Mono 16-bit WAV of float samples in [-1, 1] (rounded as the library's writer does);
    returns the samples as they read back (int16 / 32768)."""
    pcm = np.clip(np.round(np.asarray(samples, dtype=np.float64) * 32767), -32768, 32767)
    pcm = pcm.astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return (pcm.astype(np.float32) / 32768.0).astype(np.float32)
