/*
 * batch-rename-c: batch-rename's contract, written in C against
 * xcsh_pack.h. `batch_rename_preview` previews renaming files with one
 * rule (a regex replacement, a prefix or a suffix) and pushes a pending
 * action; `resolve` apply renames them, never overwriting; discard says
 * what was dropped. `push_marker` pushes an action without a reject, and
 * `noop` answers `ok` (the benchmark's smallest call).
 *
 * Build: cc -shared -fPIC -I crates/xcsh-c-abi/include \
 *            plugins/c-packs/batch_rename.c plugins/c-packs/json.c \
 *            -o libbatch_rename_c.so
 *
 * The regex rule uses POSIX extended regular expressions (regcomp), not
 * Rust's regex syntax; `$1` and `${1}` in the replacement name groups.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "xcsh_pack.h"

XCSH_PACK_DEFINE_VERSION;

static XcshStr str_of(const char *text) {
    XcshStr s = {text, strlen(text)};
    return s;
}

/* One planned rename. */
typedef struct {
    char *from_display, *to_display; /* as the model wrote them */
    char *from, *to;                 /* absolute paths */
    char *directory;                 /* the source's directory, resolved */
} rename_t;

/* A plan: what apply renames; also the action's user data. */
typedef struct {
    rename_t *renames;
    size_t count;
    char **unchanged;
    size_t unchanged_count;
} plan_t;

static void plan_free(plan_t *plan) {
    for (size_t i = 0; i < plan->count; i++) {
        rename_t *r = &plan->renames[i];
        free(r->from_display); free(r->to_display); free(r->from); free(r->to); free(r->directory);
    }
    for (size_t i = 0; i < plan->unchanged_count; i++) free(plan->unchanged[i]);
    free(plan->renames);
    free(plan->unchanged);
    free(plan);
}

static void release_plan(void *user_data) { plan_free(user_data); }

/* How a new name is made. */
typedef struct {
    enum { RULE_REGEX, RULE_PREFIX, RULE_SUFFIX } kind;
    const char *text; /* prefix, suffix or replacement */
    regex_t regex;
} rule_t;

static char *join_path(const char *dir, const char *name) {
    if (name[0] == '/') return strdup(name);
    buf b = {0};
    buf_puts(&b, dir);
    if (b.len == 0 || b.ptr[b.len - 1] != '/') buf_puts(&b, "/");
    buf_puts(&b, name);
    return b.ptr;
}

/* The last component of `path`, or NULL when it is `.`, `..` or empty. */
static const char *file_name(const char *path) {
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/') len--;
    const char *slash = memrchr(path, '/', len);
    const char *name = slash ? slash + 1 : path;
    size_t n = (size_t)(path + len - name);
    if (n == 0 || (n == 1 && name[0] == '.') || (n == 2 && name[0] == '.' && name[1] == '.')) return NULL;
    return name;
}

/* `path` with its last component replaced by `name`. */
static char *with_file_name(const char *path, const char *name) {
    const char *last = file_name(path);
    buf b = {0};
    buf_add(&b, path, last ? (size_t)(last - path) : strlen(path));
    buf_puts(&b, name);
    return b.ptr;
}

static char *parent_of(const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static char *apply_rule(rule_t *rule, const char *name) {
    buf b = {0};
    if (rule->kind == RULE_PREFIX) {
        buf_puts(&b, rule->text);
        buf_puts(&b, name);
    } else if (rule->kind == RULE_SUFFIX) {
        const char *dot = strrchr(name, '.');
        if (dot && dot > name) {
            buf_add(&b, name, (size_t)(dot - name));
            buf_puts(&b, rule->text);
            buf_puts(&b, dot);
        } else {
            buf_puts(&b, name);
            buf_puts(&b, rule->text);
        }
    } else {
        const char *at = name;
        regmatch_t groups[10];
        while (*at && regexec(&rule->regex, at, 10, groups, at == name ? 0 : REG_NOTBOL) == 0) {
            buf_add(&b, at, (size_t)groups[0].rm_so);
            for (const char *r = rule->text; *r; r++) {
                int group = -1;
                if (r[0] == '$' && r[1] >= '0' && r[1] <= '9') { group = r[1] - '0'; r += 1; }
                else if (r[0] == '$' && r[1] == '{' && r[2] >= '0' && r[2] <= '9' && r[3] == '}') { group = r[2] - '0'; r += 3; }
                if (group < 0) { buf_add(&b, r, 1); continue; }
                if (groups[group].rm_so >= 0) buf_add(&b, at + groups[group].rm_so, (size_t)(groups[group].rm_eo - groups[group].rm_so));
            }
            if (groups[0].rm_eo == groups[0].rm_so) {
                buf_add(&b, at + groups[0].rm_eo, 1);
                at += groups[0].rm_eo + 1;
            } else {
                at += groups[0].rm_eo;
            }
        }
        buf_puts(&b, at);
    }
    if (!b.ptr) buf_puts(&b, "");
    return b.ptr;
}

static int valid_name(const char *name) {
    return name[0] && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/');
}

/* Whether `path` is `root` or inside it. */
static int inside(const char *root, const char *path) {
    size_t n = strlen(root);
    if (strcmp(root, "/") == 0) return 1;
    return strncmp(root, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A name as shown in a line: control characters escaped. */
static void add_shown(buf *b, const char *name) {
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (*c == '\n') buf_puts(b, "\\n");
        else if (*c == '\t') buf_puts(b, "\\t");
        else if (*c == '\r') buf_puts(b, "\\r");
        else if (*c < 0x20 || *c == 0x7f) buf_printf(b, "\\u{%x}", *c);
        else buf_add(b, (const char *)c, 1);
    }
}

static void add_count(buf *b, size_t n) { buf_printf(b, "%zu file%s", n, n == 1 ? "" : "s"); }

static void add_lines(buf *b, const plan_t *plan) {
    for (size_t i = 0; i < plan->count; i++) {
        buf_puts(b, "\n  ");
        add_shown(b, plan->renames[i].from_display);
        buf_puts(b, " → ");
        add_shown(b, plan->renames[i].to_display);
    }
}

/* `{"KEY": [lines]}` */
static void add_lines_json(buf *b, const char *key, const plan_t *plan) {
    buf_printf(b, "{\"%s\":[", key);
    for (size_t i = 0; i < plan->count; i++) {
        buf line = {0};
        add_shown(&line, plan->renames[i].from_display);
        buf_puts(&line, " → ");
        add_shown(&line, plan->renames[i].to_display);
        if (i) buf_puts(b, ",");
        buf_json_string(b, line.ptr);
        buf_free(&line);
    }
    buf_puts(b, "]}");
}

static void fail(const XcshHost *host, XcshOutput *out, const char *message) {
    host->add_text(out, str_of(message));
    host->set_error(out, true);
}

/* Plans the renames, or writes the error into `error`. */
static plan_t *make_plan(const char *cwd, const json *args, buf *error) {
    const json *files = json_get(args, "files");
    const json *rule_json = json_get(args, "rule");
    const char *kind = json_get_string(rule_json, "kind");
    rule_t rule = {0};
    if (!files || files->kind != JSON_ARRAY || !kind) { buf_puts(error, "invalid arguments"); return NULL; }
    if (strcmp(kind, "prefix") == 0) { rule.kind = RULE_PREFIX; rule.text = json_get_string(rule_json, "prefix"); }
    else if (strcmp(kind, "suffix") == 0) { rule.kind = RULE_SUFFIX; rule.text = json_get_string(rule_json, "suffix"); }
    else {
        rule.kind = RULE_REGEX;
        rule.text = json_get_string(rule_json, "replacement");
        const char *pattern = json_get_string(rule_json, "pattern");
        int code = regcomp(&rule.regex, pattern ? pattern : "", REG_EXTENDED);
        if (code != 0) {
            char why[256];
            regerror(code, &rule.regex, why, sizeof why);
            buf_printf(error, "invalid regex pattern: %s", why);
            return NULL;
        }
    }
    if (!rule.text) rule.text = "";
    char root[PATH_MAX];
    if (!realpath(cwd, root)) snprintf(root, sizeof root, "%s", cwd);

    plan_t *plan = calloc(1, sizeof *plan);
    char **sources = calloc(files->count + 1, sizeof *sources);
    size_t source_count = 0;
    for (size_t i = 0; i < files->count && !error->len; i++) {
        const char *file = files->items[i].string;
        char *from = join_path(cwd, file);
        char *parent = parent_of(from);
        char resolved[PATH_MAX], directory[PATH_MAX];
        const char *name = file_name(from);
        if (!is_file(from) || !name) { buf_printf(error, "%s: no such file", file); }
        else if (!realpath(from, resolved) || !realpath(parent, directory)) { buf_printf(error, "%s: no such file", file); }
        else if (!inside(root, resolved) || !inside(root, directory)) {
            buf_printf(error, "%s: outside the working directory (it resolves to %s); batch-rename only renames files inside it",
                       file, inside(root, resolved) ? directory : resolved);
        } else {
            for (size_t s = 0; s < source_count; s++) {
                if (strcmp(sources[s], resolved) == 0) { buf_printf(error, "%s: listed more than once", file); break; }
            }
        }
        if (error->len) { free(from); free(parent); break; }
        sources[source_count++] = strdup(resolved);
        char *new_name = apply_rule(&rule, name);
        if (strcmp(new_name, name) == 0) {
            plan->unchanged = realloc(plan->unchanged, (plan->unchanged_count + 1) * sizeof *plan->unchanged);
            plan->unchanged[plan->unchanged_count++] = strdup(file);
            free(new_name); free(from); free(parent);
            continue;
        }
        if (!valid_name(new_name)) {
            buf b = {0};
            buf_json_string(&b, new_name);
            buf_printf(error, "%s: the rule gives an invalid file name %s", file, b.ptr);
            buf_free(&b);
            free(new_name); free(from); free(parent);
            break;
        }
        plan->renames = realloc(plan->renames, (plan->count + 1) * sizeof *plan->renames);
        rename_t *r = &plan->renames[plan->count++];
        r->from_display = strdup(file);
        r->to_display = with_file_name(file, new_name);
        r->to = with_file_name(from, new_name);
        r->from = from;
        r->directory = strdup(directory);
        free(new_name); free(parent);
    }
    for (size_t s = 0; s < source_count; s++) free(sources[s]);
    free(sources);
    if (rule.kind == RULE_REGEX) regfree(&rule.regex);
    for (size_t i = 0; i < plan->count && !error->len; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(plan->renames[i].to, plan->renames[j].to) == 0) {
                buf_printf(error, "%s and %s would both be renamed to %s", plan->renames[j].from_display,
                           plan->renames[i].from_display, plan->renames[i].to_display);
                break;
            }
        }
        struct stat st;
        if (!error->len && stat(plan->renames[i].to, &st) == 0) {
            buf_printf(error, "%s: %s already exists", plan->renames[i].from_display, plan->renames[i].to_display);
        }
    }
    if (error->len) { plan_free(plan); return NULL; }
    return plan;
}

/* Moves `from` to `to`, never replacing `to`: 0, or an errno. */
static int move_no_clobber(const char *from, const char *to) {
    if (link(from, to) == 0) {
        if (unlink(from) != 0) { int e = errno; unlink(to); return e; }
        return 0;
    }
    if (errno == EEXIST) return EEXIST;
    struct stat st;
    if (lstat(to, &st) == 0) return EEXIST;
    return rename(from, to) == 0 ? 0 : errno;
}

/* Renames one file, or writes why not. */
static int apply_one(const rename_t *r, buf *error) {
    if (!is_file(r->from)) { buf_printf(error, "%s no longer exists", r->from_display); return 0; }
    char *parent = parent_of(r->from);
    char directory[PATH_MAX];
    int same = realpath(parent, directory) && strcmp(directory, r->directory) == 0;
    free(parent);
    if (!same) {
        buf_printf(error, "%s is no longer where the preview found it (a directory on its path changed)", r->from_display);
        return 0;
    }
    int e = move_no_clobber(r->from, r->to);
    if (e == EEXIST) { buf_printf(error, "refusing to overwrite %s: it exists now", r->to_display); return 0; }
    if (e) { buf_printf(error, "could not rename %s: %s (os error %d)", r->from_display, strerror(e), e); return 0; }
    return 1;
}

static void apply_rename(const XcshHost *host, void *user_data, XcshStr reason, XcshOutput *out) {
    (void)reason;
    const plan_t *plan = user_data;
    buf error = {0};
    size_t done = 0;
    while (done < plan->count && apply_one(&plan->renames[done], &error)) done++;
    if (error.len) {
        while (done-- > 0) {
            const rename_t *r = &plan->renames[done];
            if (move_no_clobber(r->to, r->from) != 0) fprintf(stderr, "batch-rename-c: could not undo %s\n", r->to_display);
        }
        fail(host, out, error.ptr);
        buf_free(&error);
        return;
    }
    buf text = {0}, details = {0};
    buf_puts(&text, "Renamed ");
    add_count(&text, plan->count);
    buf_puts(&text, ":");
    add_lines(&text, plan);
    add_lines_json(&details, "renamed", plan);
    host->add_text(out, str_of(text.ptr));
    host->set_details(out, str_of(details.ptr));
    buf_free(&text);
    buf_free(&details);
}

static void reject_rename(const XcshHost *host, void *user_data, XcshStr reason, XcshOutput *out) {
    (void)reason;
    const plan_t *plan = user_data;
    buf text = {0}, details = {0};
    buf_puts(&text, "Discarded batch rename of ");
    add_count(&text, plan->count);
    buf_puts(&text, "; nothing was renamed:");
    add_lines(&text, plan);
    add_lines_json(&details, "discarded", plan);
    host->add_text(out, str_of(text.ptr));
    host->set_details(out, str_of(details.ptr));
    buf_free(&text);
    buf_free(&details);
}

static void preview(const XcshCall *call, void *tool_data, XcshStr arguments, XcshOutput *out) {
    (void)tool_data;
    const XcshHost *host = call->host;
    json *args = json_parse(arguments.ptr, arguments.len);
    char *cwd = strndup(call->cwd.ptr, call->cwd.len);
    buf error = {0};
    plan_t *plan = args ? make_plan(cwd, args, &error) : NULL;
    json_free(args);
    free(cwd);
    if (!plan) {
        fail(host, out, error.len ? error.ptr : "invalid arguments");
        buf_free(&error);
        return;
    }
    if (plan->count == 0) {
        host->add_text(out, XCSH_STR("Nothing to rename: the rule leaves every file name as it is."));
        plan_free(plan);
        return;
    }
    buf text = {0}, details = {0}, label = {0};
    buf_puts(&text, "Batch rename preview (");
    add_count(&text, plan->count);
    buf_puts(&text, "):");
    add_lines(&text, plan);
    if (plan->unchanged_count) {
        buf_puts(&text, "\nUnchanged: ");
        for (size_t i = 0; i < plan->unchanged_count; i++) {
            if (i) buf_puts(&text, ", ");
            buf_puts(&text, plan->unchanged[i]);
        }
    }
    buf_puts(&details, "{\"renames\":[");
    for (size_t i = 0; i < plan->count; i++) {
        if (i) buf_puts(&details, ",");
        buf_puts(&details, "{\"from\":");
        buf_json_string(&details, plan->renames[i].from_display);
        buf_puts(&details, ",\"to\":");
        buf_json_string(&details, plan->renames[i].to_display);
        buf_puts(&details, "}");
    }
    buf_puts(&details, "],\"unchanged\":[");
    for (size_t i = 0; i < plan->unchanged_count; i++) {
        if (i) buf_puts(&details, ",");
        buf_json_string(&details, plan->unchanged[i]);
    }
    buf_puts(&details, "]}");
    buf_puts(&label, "Batch Rename: ");
    add_count(&label, plan->count);

    XcshPendingAction action = {
        .label = str_of(label.ptr),
        .source_tool_name = XCSH_STR("batch_rename_preview"),
        .details_json = str_of(details.ptr),
        .apply = apply_rename,
        .reject = reject_rename,
        .release = release_plan,
        .user_data = plan,
    };
    XcshString message = {NULL, 0};
    /* The host owns `plan` from here on, whatever the push returns. */
    if (host->push_pending_action(call, &action, &message) != XCSH_OK) {
        fail(host, out, message.ptr);
        host->free_string(&message);
    } else {
        host->add_text(out, str_of(text.ptr));
        host->set_details(out, str_of(details.ptr));
    }
    buf_free(&text);
    buf_free(&details);
    buf_free(&label);
}

static void apply_marker(const XcshHost *host, void *user_data, XcshStr reason, XcshOutput *out) {
    (void)reason;
    buf text = {0};
    buf_printf(&text, "applied %s", (const char *)user_data);
    host->add_text(out, str_of(text.ptr));
    buf_free(&text);
}

static void push_marker(const XcshCall *call, void *tool_data, XcshStr arguments, XcshOutput *out) {
    (void)tool_data;
    const XcshHost *host = call->host;
    json *args = json_parse(arguments.ptr, arguments.len);
    const char *tag = json_get_string(args, "tag");
    char *kept = strdup(tag ? tag : "");
    json_free(args);
    buf label = {0};
    buf_printf(&label, "Marker: %s", kept);
    XcshPendingAction action = {
        .label = str_of(label.ptr),
        .source_tool_name = XCSH_STR("push_marker"),
        .details_json = {NULL, 0},
        .apply = apply_marker,
        .reject = NULL,
        .release = free,
        .user_data = kept,
    };
    XcshString message = {NULL, 0};
    buf text = {0};
    if (host->push_pending_action(call, &action, &message) != XCSH_OK) {
        fail(host, out, message.ptr);
        host->free_string(&message);
    } else {
        buf_printf(&text, "pushed %s", label.ptr + strlen("Marker: "));
        host->add_text(out, str_of(text.ptr));
    }
    buf_free(&text);
    buf_free(&label);
}

static void noop(const XcshCall *call, void *tool_data, XcshStr arguments, XcshOutput *out) {
    (void)tool_data;
    (void)arguments;
    call->host->add_text(out, XCSH_STR("ok"));
}

#define NOT_STATED {XCSH_HINT_UNSET, XCSH_HINT_UNSET, XCSH_HINT_UNSET, XCSH_HINT_UNSET}

static const XcshTool TOOLS[] = {
    {
        XCSH_STR_INIT("batch_rename_preview"),
        XCSH_STR_INIT("Batch Rename"),
        XCSH_STR_INIT("Preview renaming several files with one rule (regex replacement, prefix or suffix). "
                      "Nothing is renamed until you call `resolve` with `apply`; `discard` leaves the files."),
        XCSH_STR_INIT(
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"files\",\"rule\"],\"properties\":{"
            "\"files\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"type\":\"string\"},"
            "\"description\":\"Files to rename, relative to the working directory (or absolute); each must resolve, "
            "symlinks included, inside the working directory. Only the file name changes.\"},"
            "\"rule\":{\"description\":\"How each new file name is made from the old one.\",\"oneOf\":["
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"kind\",\"pattern\",\"replacement\"],"
            "\"properties\":{\"kind\":{\"const\":\"regex\"},\"pattern\":{\"type\":\"string\",\"description\":"
            "\"A POSIX extended regular expression.\"},\"replacement\":{\"type\":\"string\",\"description\":"
            "\"The replacement; $1 and ${1} name groups.\"}}},"
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"kind\",\"prefix\"],"
            "\"properties\":{\"kind\":{\"const\":\"prefix\"},\"prefix\":{\"type\":\"string\"}}},"
            "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"kind\",\"suffix\"],"
            "\"properties\":{\"kind\":{\"const\":\"suffix\"},\"suffix\":{\"type\":\"string\"}}}]}}}"),
        {XCSH_HINT_TRUE, XCSH_HINT_FALSE, XCSH_HINT_FALSE, XCSH_HINT_FALSE},
        preview,
        NULL,
    },
    {
        XCSH_STR_INIT("push_marker"),
        XCSH_STR_INIT("Push marker"),
        XCSH_STR_INIT("Pushes an action labelled `Marker: {tag}`."),
        XCSH_STR_INIT("{\"type\":\"object\",\"required\":[\"tag\"],\"properties\":{\"tag\":{\"type\":\"string\"}}}"),
        NOT_STATED,
        push_marker,
        NULL,
    },
    {
        XCSH_STR_INIT("noop"),
        XCSH_STR_INIT("No-op"),
        XCSH_STR_INIT("Answers `ok` and does nothing else."),
        XCSH_STR_INIT("{\"type\":\"object\",\"properties\":{}}"),
        NOT_STATED,
        noop,
        NULL,
    },
};

XcshStatus xcsh_pack_entry(const XcshHost *host, XcshPack *pack) {
    (void)host;
    pack->name = XCSH_STR("batch-rename-c");
    pack->version = XCSH_STR("0.1.0");
    pack->tools = TOOLS;
    pack->tool_count = sizeof TOOLS / sizeof TOOLS[0];
    return XCSH_OK;
}
