#!/usr/bin/env python3
"""Fails when a source file includes a header of a layer above it (docs/architecture.md).

Each layer is a folder of src/ (plus tools/cli and include/qwen3tts); a file may include
headers of its own layer and of the layers listed for it. Inside the backend, only backend
files may include backend/cpu/ or backend/reference/: everything above sees backend/ops.hpp.
Run by ctest (unit.layer_ladder) and usable by hand: scripts/check_layers.py [REPO_ROOT].
"""
import pathlib
import re
import sys

BELOW = {
    "core": set(),
    "weights": {"core"},
    "audio": {"core"},
    "text": {"core"},
    "hub": {"core", "weights"},
    "backend": {"core"},
    "nn": {"backend", "core", "weights"},
    "model": {"nn", "backend", "text", "audio", "weights", "core"},
    "runtime": {"model", "nn", "backend", "text", "audio", "weights", "core"},
    "api": {"runtime", "model", "nn", "backend", "text", "audio", "weights", "hub", "core",
            "qwen3tts"},
    # src/server (qwen3tts serve): the public API, plus core (errors, atomic files) and audio
    # (streaming encoders to an HTTP body); never the model or runtime internals.
    "server": {"core", "audio", "qwen3tts"},
    "cli": {"qwen3tts", "server"},  # tools/cli: the public API, and the server for `serve`
}
PUBLIC = "qwen3tts"  # include/qwen3tts: the public headers, usable by every layer
BACKEND_PRIVATE = ("backend/cpu/", "backend/reference/")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path: pathlib.Path, root: pathlib.Path) -> str | None:
    rel = path.relative_to(root).parts
    if rel[0] == "src":
        return rel[1]
    if rel[:2] == ("tools", "cli"):
        return "cli"
    return None


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[1])
    files = [p for d in ("src", "tools/cli") for p in (root / d).rglob("*")
             if p.suffix in (".hpp", ".cpp", ".h")]
    problems = []
    for f in sorted(files):
        layer = layer_of(f, root)
        if layer not in BELOW:
            problems.append(f"{f.relative_to(root)}: folder is not a known layer")
            continue
        for line_no, inc in ((f.read_text().count("\n", 0, m.start()) + 1, m.group(1))
                             for m in INCLUDE.finditer(f.read_text())):
            target = inc.split("/")[0] if "/" in inc else layer  # "x.hpp": same folder
            if target in (layer, PUBLIC) or target in BELOW[layer]:
                if inc.startswith(BACKEND_PRIVATE) and layer != "backend":
                    problems.append(f"{f.relative_to(root)}:{line_no}: includes {inc}; "
                                    "layers above the backend use backend/ops.hpp only")
                continue
            problems.append(f"{f.relative_to(root)}:{line_no}: layer '{layer}' includes "
                            f"{inc} from layer '{target}', which is not below it")
    for p in problems:
        print(p)
    print(f"layer ladder: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
