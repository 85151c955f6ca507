"""Records the checkout this package is installed from, so that it finds the library built
there (<checkout>/build) without QWEN3TTS_LIBRARY; everything else is in pyproject.toml."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class BuildPyRecordingCheckout(build_py):
    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "qwen3tts", "_checkout.py")
        with open(target, "w", encoding="utf-8") as f:
            f.write("# Written at install time by setup.py.\nCHECKOUT = %r\n" % CHECKOUT)


setup(cmdclass={"build_py": BuildPyRecordingCheckout})
