// batch-rename-cxx: batch-rename's contract in C++17 against xcsh_pack.h
// (std::filesystem for the paths, std::regex, ECMAScript syntax, for the
// regex rule; the arguments are read with json.c).
//
// Build: c++ -std=c++17 -shared -fPIC -I crates/xcsh-c-abi/include
//     plugins/c-packs/batch_rename.cpp plugins/c-packs/json.c
//            -o libbatch_rename_cxx.so
//
// No C++ exception may leave a function the host calls: each catches its
// own and reports it as an error result.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "xcsh_pack.h"
extern "C" {
#include "json.h"
}

namespace fs = std::filesystem;

XCSH_PACK_DEFINE_VERSION;

namespace {

XcshStr view(const std::string &s) { return XcshStr{s.data(), s.size()}; }

struct Rename {
    std::string from_display, to_display;
    fs::path from, to, directory;
};

struct Plan {
    std::vector<Rename> renames;
    std::vector<std::string> unchanged;

    std::string count() const {
        return std::to_string(renames.size()) + (renames.size() == 1 ? " file" : " files");
    }
    std::vector<std::string> lines() const {
        std::vector<std::string> out;
        for (const auto &r : renames) out.push_back(r.from_display + " → " + r.to_display);
        return out;
    }
};

std::string json_quoted(const std::string &s) {
    buf b = {nullptr, 0, 0};
    buf_json_string(&b, s.c_str());
    std::string out(b.ptr, b.len);
    buf_free(&b);
    return out;
}

std::string json_list(const std::vector<std::string> &items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); i++) out += (i ? "," : "") + json_quoted(items[i]);
    return out + "]";
}

std::string joined(const std::vector<std::string> &lines) {
    std::string out;
    for (const auto &line : lines) out += "\n  " + line;
    return out;
}

struct Failure {
    std::string message;
};

bool is_file(const fs::path &p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool inside(const fs::path &root, const fs::path &p) {
    auto r = root.begin(), q = p.begin();
    for (; r != root.end(); ++r, ++q)
        if (q == p.end() || *r != *q) return false;
    return true;
}

std::string renamed(const json *rule, const std::string &name) {
    std::string kind = json_get_string(rule, "kind");
    if (kind == "prefix") return json_get_string(rule, "prefix") + name;
    if (kind == "suffix") {
        std::string suffix = json_get_string(rule, "suffix");
        auto dot = name.rfind('.');
        if (dot != std::string::npos && dot > 0) return name.substr(0, dot) + suffix + name.substr(dot);
        return name + suffix;
    }
    std::regex pattern;
    try {
        pattern = std::regex(json_get_string(rule, "pattern"));
    } catch (const std::regex_error &e) {
        throw Failure{std::string("invalid regex pattern: ") + e.what()};
    }
    return std::regex_replace(name, pattern, json_get_string(rule, "replacement"));
}

Plan make_plan(const fs::path &cwd, const json *args) {
    const json *files = json_get(args, "files");
    const json *rule = json_get(args, "rule");
    fs::path root = fs::weakly_canonical(cwd);
    Plan plan;
    std::vector<fs::path> sources;
    for (size_t i = 0; i < files->count; i++) {
        std::string file = files->items[i].string;
        fs::path from = cwd / file;
        std::string name = from.filename().string();
        std::error_code error;
        if (!is_file(from) || name.empty() || name == "." || name == "..") throw Failure{file + ": no such file"};
        fs::path resolved = fs::canonical(from, error);
        fs::path directory = error ? fs::path() : fs::canonical(from.parent_path(), error);
        if (error) throw Failure{file + ": no such file"};
        for (const auto &p : {resolved, directory})
            if (!inside(root, p))
                throw Failure{file + ": outside the working directory (it resolves to " + p.string() +
                              "); batch-rename only renames files inside it"};
        for (const auto &s : sources)
            if (s == resolved) throw Failure{file + ": listed more than once"};
        sources.push_back(resolved);
        std::string new_name = renamed(rule, name);
        if (new_name == name) {
            plan.unchanged.push_back(file);
            continue;
        }
        if (new_name.empty() || new_name == "." || new_name == ".." || new_name.find('/') != std::string::npos)
            throw Failure{file + ": the rule gives an invalid file name " + json_quoted(new_name)};
        Rename r;
        r.from_display = file;
        r.to_display = fs::path(file).replace_filename(new_name).string();
        r.to = fs::path(from).replace_filename(new_name);
        r.from = from;
        r.directory = directory;
        plan.renames.push_back(r);
    }
    for (size_t i = 0; i < plan.renames.size(); i++) {
        for (size_t j = 0; j < i; j++)
            if (plan.renames[i].to == plan.renames[j].to)
                throw Failure{plan.renames[j].from_display + " and " + plan.renames[i].from_display +
                              " would both be renamed to " + plan.renames[i].to_display};
        struct stat st;
        if (::stat(plan.renames[i].to.c_str(), &st) == 0)
            throw Failure{plan.renames[i].from_display + ": " + plan.renames[i].to_display + " already exists"};
    }
    return plan;
}

// Moves without replacing: 0 or an errno.
int move_no_clobber(const fs::path &from, const fs::path &to) {
    if (::link(from.c_str(), to.c_str()) == 0) {
        if (::unlink(from.c_str()) != 0) {
            int e = errno;
            ::unlink(to.c_str());
            return e;
        }
        return 0;
    }
    if (errno == EEXIST) return EEXIST;
    struct stat st;
    if (::lstat(to.c_str(), &st) == 0) return EEXIST;
    return std::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

void apply_one(const Rename &r) {
    if (!is_file(r.from)) throw Failure{r.from_display + " no longer exists"};
    std::error_code error;
    if (fs::canonical(r.from.parent_path(), error) != r.directory || error)
        throw Failure{r.from_display + " is no longer where the preview found it (a directory on its path changed)"};
    int e = move_no_clobber(r.from, r.to);
    if (e == EEXIST) throw Failure{"refusing to overwrite " + r.to_display + ": it exists now"};
    if (e) throw Failure{"could not rename " + r.from_display + ": " + std::strerror(e) + " (os error " + std::to_string(e) + ")"};
}

void fail(const XcshHost *host, XcshOutput *out, const std::string &message) {
    host->add_text(out, view(message));
    host->set_error(out, true);
}

void apply_plan(const XcshHost *host, void *user_data, XcshStr, XcshOutput *out) {
    const Plan &plan = *static_cast<Plan *>(user_data);
    size_t done = 0;
    try {
        for (; done < plan.renames.size(); done++) apply_one(plan.renames[done]);
    } catch (const Failure &failure) {
        while (done-- > 0) move_no_clobber(plan.renames[done].to, plan.renames[done].from);
        return fail(host, out, failure.message);
    } catch (const std::exception &e) {
        return fail(host, out, e.what());
    }
    host->add_text(out, view("Renamed " + plan.count() + ":" + joined(plan.lines())));
    host->set_details(out, view("{\"renamed\":" + json_list(plan.lines()) + "}"));
}

void reject_plan(const XcshHost *host, void *user_data, XcshStr, XcshOutput *out) {
    const Plan &plan = *static_cast<Plan *>(user_data);
    host->add_text(out, view("Discarded batch rename of " + plan.count() + "; nothing was renamed:" + joined(plan.lines())));
    host->set_details(out, view("{\"discarded\":" + json_list(plan.lines()) + "}"));
}

void release_plan(void *user_data) { delete static_cast<Plan *>(user_data); }

void preview(const XcshCall *call, void *, XcshStr arguments, XcshOutput *out) {
    const XcshHost *host = call->host;
    std::unique_ptr<json, void (*)(json *)> args(json_parse(arguments.ptr, arguments.len), json_free);
    std::unique_ptr<Plan> plan;
    try {
        plan = std::make_unique<Plan>(make_plan(std::string(call->cwd.ptr, call->cwd.len), args.get()));
    } catch (const Failure &failure) {
        return fail(host, out, failure.message);
    } catch (const std::exception &e) {
        return fail(host, out, e.what());
    }
    if (plan->renames.empty())
        return (void)host->add_text(out, XCSH_STR("Nothing to rename: the rule leaves every file name as it is."));
    std::string text = "Batch rename preview (" + plan->count() + "):" + joined(plan->lines());
    if (!plan->unchanged.empty()) {
        text += "\nUnchanged: ";
        for (size_t i = 0; i < plan->unchanged.size(); i++) text += (i ? ", " : "") + plan->unchanged[i];
    }
    std::string details = "{\"renames\":[";
    for (size_t i = 0; i < plan->renames.size(); i++)
        details += std::string(i ? "," : "") + "{\"from\":" + json_quoted(plan->renames[i].from_display) +
                   ",\"to\":" + json_quoted(plan->renames[i].to_display) + "}";
    details += "],\"unchanged\":" + json_list(plan->unchanged) + "}";
    std::string label = "Batch Rename: " + plan->count();
    XcshPendingAction action = {view(label), XCSH_STR("batch_rename_preview"), view(details),
                                apply_plan, reject_plan, release_plan, plan.release()};
    XcshString message = {nullptr, 0};
    // The host owns the plan from here on, whatever the push returns.
    if (host->push_pending_action(call, &action, &message) != XCSH_OK) {
        fail(host, out, std::string(message.ptr, message.len));
        host->free_string(&message);
        return;
    }
    host->add_text(out, view(text));
    host->set_details(out, view(details));
}

void apply_marker(const XcshHost *host, void *user_data, XcshStr, XcshOutput *out) {
    host->add_text(out, view("applied " + *static_cast<std::string *>(user_data)));
}

void release_marker(void *user_data) { delete static_cast<std::string *>(user_data); }

void push_marker(const XcshCall *call, void *, XcshStr arguments, XcshOutput *out) {
    const XcshHost *host = call->host;
    std::unique_ptr<json, void (*)(json *)> args(json_parse(arguments.ptr, arguments.len), json_free);
    const char *tag = json_get_string(args.get(), "tag");
    auto kept = std::make_unique<std::string>(tag ? tag : "");
    std::string label = "Marker: " + *kept, pushed = "pushed " + *kept;
    XcshPendingAction action = {view(label), XCSH_STR("push_marker"), {nullptr, 0},
                                apply_marker, nullptr, release_marker, kept.release()};
    XcshString message = {nullptr, 0};
    if (host->push_pending_action(call, &action, &message) != XCSH_OK) {
        fail(host, out, std::string(message.ptr, message.len));
        host->free_string(&message);
        return;
    }
    host->add_text(out, view(pushed));
}

void noop(const XcshCall *call, void *, XcshStr, XcshOutput *out) { call->host->add_text(out, XCSH_STR("ok")); }

const XcshHints NOT_STATED = {XCSH_HINT_UNSET, XCSH_HINT_UNSET, XCSH_HINT_UNSET, XCSH_HINT_UNSET};

const char SCHEMA[] =
    R"({"type":"object","additionalProperties":false,"required":["files","rule"],"properties":{)"
    R"("files":{"type":"array","minItems":1,"items":{"type":"string"},"description":"Files to rename, relative to the working directory (or absolute); each must resolve, symlinks included, inside the working directory. Only the file name changes."},)"
    R"("rule":{"description":"How each new file name is made from the old one.","oneOf":[)"
    R"({"type":"object","additionalProperties":false,"required":["kind","pattern","replacement"],"properties":{"kind":{"const":"regex"},"pattern":{"type":"string","description":"An ECMAScript regular expression."},"replacement":{"type":"string","description":"The replacement; $1 names a group."}}},)"
    R"({"type":"object","additionalProperties":false,"required":["kind","prefix"],"properties":{"kind":{"const":"prefix"},"prefix":{"type":"string"}}},)"
    R"({"type":"object","additionalProperties":false,"required":["kind","suffix"],"properties":{"kind":{"const":"suffix"},"suffix":{"type":"string"}}}]}}})";

const XcshTool TOOLS[] = {
    {XCSH_STR("batch_rename_preview"), XCSH_STR("Batch Rename"),
     XCSH_STR("Preview renaming several files with one rule (regex replacement, prefix or suffix). "
              "Nothing is renamed until you call `resolve` with `apply`; `discard` leaves the files."),
     XCSH_STR(SCHEMA), {XCSH_HINT_TRUE, XCSH_HINT_FALSE, XCSH_HINT_FALSE, XCSH_HINT_FALSE}, preview, nullptr},
    {XCSH_STR("push_marker"), XCSH_STR("Push marker"), XCSH_STR("Pushes an action labelled `Marker: {tag}`."),
     XCSH_STR(R"({"type":"object","required":["tag"],"properties":{"tag":{"type":"string"}}})"), NOT_STATED,
     push_marker, nullptr},
    {XCSH_STR("noop"), XCSH_STR("No-op"), XCSH_STR("Answers `ok` and does nothing else."),
     XCSH_STR(R"({"type":"object","properties":{}})"), NOT_STATED, noop, nullptr},
};

}  // namespace

XcshStatus xcsh_pack_entry(const XcshHost *, XcshPack *pack) {
    pack->name = XCSH_STR("batch-rename-cxx");
    pack->version = XCSH_STR("0.1.0");
    pack->tools = TOOLS;
    pack->tool_count = sizeof TOOLS / sizeof TOOLS[0];
    return XCSH_OK;
}
