// One function per subcommand (cmd_*.cpp), called with its parsed arguments; each returns the
// exit code. The table of commands and their options is options.cpp.
#pragma once

#include "args.hpp"

namespace qwen3tts::cli {

int cmd_speak(const Args& args);
int cmd_decode(const Args& args);
int cmd_codes(const Args& args);
int cmd_voice(const Args& args);
int cmd_encode(const Args& args);
int cmd_info(const Args& args);
int cmd_bench(const Args& args);
int cmd_pull(const Args& args);
int cmd_list(const Args& args);
int cmd_serve(const Args& args);
int cmd_help(const Args& args);

}  // namespace qwen3tts::cli
