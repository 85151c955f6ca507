#!/usr/bin/env python3
"""Checks the dynamic symbol table of libqwen3tts.so against the public headers.

Every exported symbol must be public API: a C function qwen3tts_* declared in qwen3tts.h, or a
qwen3tts:: function or class (its members, type information, vtable) whose name the public
headers declare with QWEN3TTS_API; never std::, nlohmann, pcre2 or an internal class. Every
class and namespace-scope function of the public headers must carry QWEN3TTS_API, and every
QWEN3TTS_API declaration must be exported (a marker that does not reach the definition, e.g. a
function defined where the public header is not included, shows up here). qwen3tts::Error's
type information must be exported, so that an Error thrown in the library is caught by type.

usage: check_exports.py <libqwen3tts.so> <include/qwen3tts>
"""
import pathlib
import re
import subprocess
import sys


# A class, or a function declared at namespace scope (the headers do not indent namespaces).
CLASS = re.compile(r"^class\s+(?!QWEN3TTS_API)(\w+)", re.M)
FUNCTION = re.compile(r"^(?!QWEN3TTS_API|typedef|namespace|struct|class|enum|#|//|/\*| )"
                      r"[\w:<>, ]+?[\s*&]+(\w+)\(", re.M)


def unmarked_declarations(include_dir):
    """Public classes and functions declared without QWEN3TTS_API (hidden in the library)."""
    found = []
    for header in sorted(pathlib.Path(include_dir).glob("*.h*")):
        text = header.read_text()
        found += [f"{header.name}: class {m.group(1)}" for m in CLASS.finditer(text)]
        found += [f"{header.name}: {m.group(1)}()" for m in FUNCTION.finditer(text)]
    return found


def declared_api(include_dir):
    """Names the public headers mark QWEN3TTS_API: (C functions, C++ classes, C++ functions)."""
    c_funcs, classes, cxx_funcs = set(), set(), set()
    for header in sorted(pathlib.Path(include_dir).glob("*.h*")):
        text = header.read_text()
        for m in re.finditer(r"\bclass\s+QWEN3TTS_API\s+(\w+)", text):
            classes.add(m.group(1))
        for m in re.finditer(r"^QWEN3TTS_API\s+[^;(]*?\b(\w+)\s*\(", text, re.M):
            (c_funcs if header.suffix == ".h" else cxx_funcs).add(m.group(1))
    return c_funcs, classes, cxx_funcs


def exported_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", "--format=posix", library],
                         check=True, capture_output=True, text=True).stdout
    mangled = [line.split()[0] for line in out.splitlines() if line.strip()]
    demangled = subprocess.run(["c++filt"], input="\n".join(mangled), check=True,
                               capture_output=True, text=True).stdout.splitlines()
    return demangled


def qualified_name(symbol):
    """'qwen3tts::Model::load(std::string const&)' -> ['qwen3tts', 'Model', 'load']."""
    for prefix in ("typeinfo name for ", "typeinfo for ", "vtable for "):
        if symbol.startswith(prefix):
            symbol = symbol[len(prefix):]
    # strip(): UBSan builds (-fsanitize=function) export the type information of function types
    # such as "qwen3tts::Voice (std::string const&)", the type of Voice::load.
    name = symbol.split("(")[0].replace("[abi:cxx11]", "").strip()
    return name.split("::")


def main():
    library, include_dir = sys.argv[1], sys.argv[2]
    c_funcs, classes, cxx_funcs = declared_api(include_dir)
    problems = [f"{d} is not marked QWEN3TTS_API" for d in unmarked_declarations(include_dir)]
    seen = set()
    symbols = exported_symbols(library)
    for symbol in symbols:
        if re.fullmatch(r"qwen3tts_\w+", symbol):
            if symbol not in c_funcs:
                problems.append(f"exported C symbol {symbol} is not declared in qwen3tts.h")
            seen.add(symbol)
            continue
        parts = qualified_name(symbol)
        if parts[0] != "qwen3tts" or "<" in symbol.split("(")[0]:
            problems.append(f"exported symbol outside the public API: {symbol}")
            continue
        if "Impl" in parts:
            problems.append(f"exported implementation class: {symbol}")
            continue
        inner = [p for p in parts[1:] if p != "hub"]
        if inner and inner[0] in classes:
            seen.add(inner[0])
        elif len(inner) == 1 and inner[0] in cxx_funcs:
            seen.add(inner[0])
        else:
            problems.append(f"exported symbol not declared QWEN3TTS_API in a public header: "
                            f"{symbol}")
    for name in sorted((c_funcs | classes | cxx_funcs) - seen):
        problems.append(f"{name} is declared QWEN3TTS_API but {library} does not export it")
    if "typeinfo for qwen3tts::Error" not in symbols:
        problems.append("typeinfo for qwen3tts::Error is not exported: an Error thrown in the "
                        "library cannot be caught by type")
    for p in problems:
        print(p)
    print(f"{library}: {len(seen)} public names checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
