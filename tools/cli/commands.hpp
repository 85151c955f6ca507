// One function per subcommand; argv[0] is the subcommand name. Each returns the exit code.
#pragma once

namespace qwen3tts::cli {

int cmd_speak(int argc, char** argv);
int cmd_decode(int argc, char** argv);
int cmd_codes(int argc, char** argv);
int cmd_voice(int argc, char** argv);
int cmd_encode(int argc, char** argv);
int cmd_info(int argc, char** argv);
int cmd_bench(int argc, char** argv);
int cmd_pull(int argc, char** argv);
int cmd_list(int argc, char** argv);

}  // namespace qwen3tts::cli
