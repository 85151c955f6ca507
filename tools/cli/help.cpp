// Help text, generated from the option tables of options.cpp.
#include <algorithm>
#include <cstdio>

#include "commands.hpp"
#include "options.hpp"
#include "qwen3tts/error.hpp"

namespace qwen3tts::cli {

namespace {

std::string option_label(const OptionSpec& o) {
    std::string s = o.short_name ? std::string("-") + o.short_name + ", " : "    ";
    s += "--" + o.name;
    if (!o.is_switch()) s += " " + o.value;
    return s;
}

std::string usage_line(const CommandSpec& c) {
    std::string s = "usage: qwen3tts " + c.name;
    for (const OptionSpec* o : c.options)
        if (o->required()) s += " --" + o->name + " " + o->value;
    if (!c.positional.empty())
        s += c.positional_required ? " " + c.positional : " [" + c.positional + "]";
    if (!c.options.empty()) s += " [options]";
    return s;
}

}  // namespace

void print_overview(std::FILE* out) {
    std::fprintf(out,
                 "usage: qwen3tts <command> [options]\n"
                 "       qwen3tts help <command>   (or: qwen3tts <command> --help)\n"
                 "       qwen3tts --version\n\ncommands:\n");
    for (const auto& c : commands())
        std::fprintf(out, "  %-8s %s\n", c.name.c_str(), c.summary.c_str());
}

void print_command_help(const CommandSpec& c, std::FILE* out) {
    constexpr size_t kLabelWidth = 30, kColumns = 100;
    std::fprintf(out, "%s\n\n%s\n", usage_line(c).c_str(), c.summary.c_str());
    std::vector<const OptionSpec*> all = c.options;
    all.push_back(&kHelp);
    std::vector<std::string> groups;  // in order of first appearance
    for (const OptionSpec* o : all)
        if (std::find(groups.begin(), groups.end(), o->group) == groups.end())
            groups.push_back(o->group);
    const std::string indent(2 + kLabelWidth + 2, ' ');
    for (const auto& g : groups) {
        std::fprintf(out, "\n%s:\n", g.c_str());
        for (const OptionSpec* o : all) {
            if (o->group != g) continue;
            // A long label gets its own line; the description starts in the column after it.
            const std::string label = option_label(*o);
            std::string line = "  " + label;
            line += label.size() <= kLabelWidth ? std::string(kLabelWidth - label.size() + 2, ' ')
                                                : "\n" + indent;
            line += o->description;
            std::string tail;
            if (o->required() && o->required_unless &&
                std::any_of(c.options.begin(), c.options.end(),
                            [&](const OptionSpec* x) { return x->name == o->required_unless; }))
                tail = std::string(" (required unless --") + o->required_unless + ")";
            else if (o->required())
                tail = " (required)";
            else if (!o->default_text.empty())
                tail = " (default: " + o->default_text + ")";
            const size_t last_line = line.size() - std::min(line.size(), line.rfind('\n') + 1);
            if (!tail.empty())
                line += last_line + tail.size() <= kColumns ? tail : "\n" + indent + tail.substr(1);
            std::fprintf(out, "%s\n", line.c_str());
        }
    }
    if (!c.notes.empty()) std::fprintf(out, "\n%s\n", c.notes.c_str());
}

int cmd_help(const Args& args) {
    if (args.positional().empty()) {
        print_overview(stdout);
        return 0;
    }
    const CommandSpec* c = find_command(args.positional());
    if (!c)
        throw Error(ErrorCode::invalid_argument,
                    "unknown command '" + args.positional() + "' (`qwen3tts help` lists them)");
    print_command_help(*c, stdout);
    return 0;
}

}  // namespace qwen3tts::cli
