#!/usr/bin/env python3
"""Installs a build tree and uses it as a user would (ctest install.consumers).

1. cmake --install <build> --prefix <work>/prefix
2. builds tests/install/consumer.c and consumer.cpp against the prefix through pkg-config
   (plain cc/c++ command lines, shared and static) and through find_package(qwen3tts)
   (tests/install/CMakeLists.txt: qwen3tts::qwen3tts and qwen3tts::qwen3tts_static)
3. runs every consumer on a tiny checkpoint and checks its codes equal those of the installed
   CLI (`<prefix>/bin/qwen3tts codes`, same text and seed), its audio of the same text and seed is
   frames × 1920 samples, and a missing model is an error naming it: a code + message through
   the C API, a qwen3tts::Error thrown inside libqwen3tts.so and caught by type in C++.

usage: run_consumers.py <build dir> <work dir> <model dir> <cc> <c++>
"""
import ast
import os
import pathlib
import shutil
import struct
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
TEXT = "Hello from an installed qwen3tts."
SEED = "7"
MAX_FRAMES = "6"
SAMPLES_PER_FRAME = 1920
MISSING = "/nonexistent/qwen3tts-model"


def run(cmd, env=None, cwd=None):
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env,
                            cwd=cwd)
    if result.returncode != 0:
        sys.exit(f"FAILED (exit {result.returncode}): {' '.join(map(str, cmd))}\n"
                 f"{result.stdout}{result.stderr}")
    return result.stdout


def read_npy_int64(path):
    """Frames of an int64 .npy of shape [frames, n_codebook] as lists."""
    data = pathlib.Path(path).read_bytes()
    header_len = struct.unpack_from("<H", data, 8)[0]
    header = ast.literal_eval(data[10:10 + header_len].decode("latin1"))
    assert header["descr"] == "<i8" and not header["fortran_order"], header
    shape = header["shape"]
    values = struct.unpack_from(f"<{shape[0] * shape[1]}q", data, 10 + header_len)
    return [list(values[i * shape[1]:(i + 1) * shape[1]]) for i in range(shape[0])]


def check_output(name, out, expected, cpp):
    lines = out.splitlines()
    frames_line = next((i for i, line in enumerate(lines) if line.startswith("frames ")), None)
    if frames_line is None:
        sys.exit(f"{name}: no 'frames' line in\n{out}")
    n = int(lines[frames_line].split()[1])
    codes = [[int(v) for v in line.split()] for line in lines[frames_line + 1:frames_line + 1 + n]]
    if codes != expected:
        sys.exit(f"{name}: codes differ from the CLI's\n got {codes}\nwant {expected}")
    if f"samples {n * SAMPLES_PER_FRAME}" not in lines:
        sys.exit(f"{name}: expected 'samples {n * SAMPLES_PER_FRAME}' in\n{out}")
    # ErrorCode::io, QWEN3TTS_ERR_IO
    error = "caught qwen3tts::Error 2: " if cpp else "error 2: "
    if not any(line.startswith(error) and MISSING in line for line in lines):
        sys.exit(f"{name}: expected a line '{error}...{MISSING}...' in\n{out}")
    print(f"{name}: {n} frames as the CLI, error reported")


def main():
    build, work, model, cc, cxx = (pathlib.Path(a) for a in sys.argv[1:6])
    shutil.rmtree(work, ignore_errors=True)
    prefix = work / "prefix"
    run(["cmake", "--install", build, "--prefix", prefix])

    run([prefix / "bin" / "qwen3tts", "codes", "--model", model, "--speaker", "ryan",
         "--language", "english", "--text", TEXT, "--seed", SEED, "--max-frames", MAX_FRAMES,
         "--threads", "2", "--out", work / "cli.npy"])
    expected = read_npy_int64(work / "cli.npy")
    args = [model, TEXT, SEED, MAX_FRAMES]

    # pkg-config, as a Makefile would use it.
    pc_files = list(prefix.glob("**/pkgconfig/qwen3tts.pc"))
    if len(pc_files) != 1:
        sys.exit(f"expected one qwen3tts.pc under {prefix}, found {pc_files}")
    env = dict(os.environ, PKG_CONFIG_PATH=str(pc_files[0].parent))
    pkg = lambda *a: run(["pkg-config", *a, "qwen3tts"], env=env).split()
    libdir = pkg("--variable=libdir")[0]
    cflags, libs = pkg("--cflags"), pkg("--libs")
    static_libs = [f for f in pkg("--static", "--libs") if f != "-lqwen3tts"]
    for lang, compiler, src in (("c", cc, "consumer.c"), ("cpp", cxx, "consumer.cpp")):
        std = ["-std=c++17"] if lang == "cpp" else []
        shared_exe = work / f"pc_{lang}_shared"
        run([compiler, *std, HERE / src, *cflags, *libs, f"-Wl,-rpath,{libdir}", "-o",
             shared_exe])
        static_exe = work / f"pc_{lang}_static"
        run([compiler, *std, HERE / src, *cflags, f"-L{libdir}", "-Wl,-Bstatic", "-lqwen3tts",
             "-Wl,-Bdynamic", *static_libs, "-o", static_exe])
        check_output(shared_exe.name, run([shared_exe, *args]), expected, lang == "cpp")
        check_output(static_exe.name, run([static_exe, *args]), expected, lang == "cpp")
        if "libqwen3tts" in run(["readelf", "-d", static_exe]):
            sys.exit(f"{static_exe.name} needs libqwen3tts.so: not linked statically")

    # find_package(qwen3tts), as a CMake project would use it.
    consumer = work / "cmake"
    run(["cmake", "-S", HERE, "-B", consumer, f"-DCMAKE_PREFIX_PATH={prefix}",
         f"-DCMAKE_C_COMPILER={cc}", f"-DCMAKE_CXX_COMPILER={cxx}"])
    run(["cmake", "--build", consumer, "-j2"])
    for exe in ("consumer_c_shared", "consumer_cpp_shared", "consumer_c_static",
                "consumer_cpp_static"):
        check_output(f"cmake {exe}", run([consumer / exe, *args]), expected, "cpp" in exe)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
