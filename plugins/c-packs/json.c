/* See json.h. */
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *at;
    const char *end;
} reader;

static void skip_space(reader *r) {
    while (r->at < r->end && (*r->at == ' ' || *r->at == '\n' || *r->at == '\r' || *r->at == '\t')) {
        r->at++;
    }
}

static int parse_value(reader *r, json *out, int depth);

static int hex4(reader *r, unsigned *out) {
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        if (r->at >= r->end) return 0;
        char c = *r->at++;
        value <<= 4;
        if (c >= '0' && c <= '9') value |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') value |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') value |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = value;
    return 1;
}

static void add_utf8(buf *b, unsigned code) {
    char bytes[4];
    size_t n;
    if (code < 0x80) { bytes[0] = (char)code; n = 1; }
    else if (code < 0x800) { bytes[0] = (char)(0xC0 | (code >> 6)); bytes[1] = (char)(0x80 | (code & 0x3F)); n = 2; }
    else if (code < 0x10000) { bytes[0] = (char)(0xE0 | (code >> 12)); bytes[1] = (char)(0x80 | ((code >> 6) & 0x3F)); bytes[2] = (char)(0x80 | (code & 0x3F)); n = 3; }
    else { bytes[0] = (char)(0xF0 | (code >> 18)); bytes[1] = (char)(0x80 | ((code >> 12) & 0x3F)); bytes[2] = (char)(0x80 | ((code >> 6) & 0x3F)); bytes[3] = (char)(0x80 | (code & 0x3F)); n = 4; }
    buf_add(b, bytes, n);
}

static int parse_string(reader *r, char **out) {
    buf b = {0};
    r->at++; /* the opening quote */
    while (r->at < r->end && *r->at != '"') {
        char c = *r->at++;
        if (c != '\\') { buf_add(&b, &c, 1); continue; }
        if (r->at >= r->end) break;
        c = *r->at++;
        switch (c) {
        case '"': case '\\': case '/': buf_add(&b, &c, 1); break;
        case 'b': buf_add(&b, "\b", 1); break;
        case 'f': buf_add(&b, "\f", 1); break;
        case 'n': buf_add(&b, "\n", 1); break;
        case 'r': buf_add(&b, "\r", 1); break;
        case 't': buf_add(&b, "\t", 1); break;
        case 'u': {
            unsigned code, low;
            if (!hex4(r, &code)) { buf_free(&b); return 0; }
            if (code >= 0xD800 && code < 0xDC00 && r->end - r->at >= 6 && r->at[0] == '\\' && r->at[1] == 'u') {
                r->at += 2;
                if (!hex4(r, &low)) { buf_free(&b); return 0; }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            }
            add_utf8(&b, code);
            break;
        }
        default: buf_free(&b); return 0;
        }
    }
    if (r->at >= r->end) { buf_free(&b); return 0; }
    r->at++; /* the closing quote */
    if (!b.ptr) buf_add(&b, "", 0);
    *out = b.ptr;
    return 1;
}

static int parse_items(reader *r, json *out, int object, int depth) {
    char close = object ? '}' : ']';
    r->at++;
    skip_space(r);
    if (r->at < r->end && *r->at == close) { r->at++; return 1; }
    for (;;) {
        skip_space(r);
        out->items = realloc(out->items, (out->count + 1) * sizeof *out->items);
        if (object) out->keys = realloc(out->keys, (out->count + 1) * sizeof *out->keys);
        json *item = &out->items[out->count];
        memset(item, 0, sizeof *item);
        if (object) {
            out->keys[out->count] = NULL;
            if (r->at >= r->end || *r->at != '"' || !parse_string(r, &out->keys[out->count])) { out->count++; return 0; }
            skip_space(r);
            if (r->at >= r->end || *r->at != ':') { out->count++; return 0; }
            r->at++;
            skip_space(r);
        }
        out->count++;
        if (!parse_value(r, item, depth + 1)) return 0;
        skip_space(r);
        if (r->at < r->end && *r->at == ',') { r->at++; continue; }
        if (r->at < r->end && *r->at == close) { r->at++; return 1; }
        return 0;
    }
}

static int literal(reader *r, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(r->end - r->at) < n || memcmp(r->at, word, n) != 0) return 0;
    r->at += n;
    return 1;
}

static int parse_value(reader *r, json *out, int depth) {
    skip_space(r);
    if (r->at >= r->end || depth > 64) return 0;
    switch (*r->at) {
    case '"': out->kind = JSON_STRING; return parse_string(r, &out->string);
    case '[': out->kind = JSON_ARRAY; return parse_items(r, out, 0, depth);
    case '{': out->kind = JSON_OBJECT; return parse_items(r, out, 1, depth);
    case 't': out->kind = JSON_BOOL; return literal(r, "true");
    case 'f': out->kind = JSON_BOOL; return literal(r, "false");
    case 'n': out->kind = JSON_NULL; return literal(r, "null");
    default:
        out->kind = JSON_NUMBER;
        if (!strchr("-0123456789", *r->at)) return 0;
        while (r->at < r->end && strchr("+-0123456789.eE", *r->at)) r->at++;
        return 1;
    }
}

static void free_inner(json *value) {
    free(value->string);
    for (size_t i = 0; i < value->count; i++) {
        if (value->keys) free(value->keys[i]);
        free_inner(&value->items[i]);
    }
    free(value->keys);
    free(value->items);
}

json *json_parse(const char *text, size_t len) {
    reader r = {text, text + len};
    json *value = calloc(1, sizeof *value);
    if (!value) return NULL;
    int ok = parse_value(&r, value, 0);
    skip_space(&r);
    if (!ok || r.at != r.end) { json_free(value); return NULL; }
    return value;
}

void json_free(json *value) {
    if (!value) return;
    free_inner(value);
    free(value);
}

const json *json_get(const json *object, const char *key) {
    if (!object || object->kind != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++) {
        if (strcmp(object->keys[i], key) == 0) return &object->items[i];
    }
    return NULL;
}

const char *json_get_string(const json *object, const char *key) {
    const json *value = json_get(object, key);
    return value && value->kind == JSON_STRING ? value->string : NULL;
}

void buf_add(buf *b, const char *bytes, size_t len) {
    if (b->len + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + len + 1) cap *= 2;
        char *grown = realloc(b->ptr, cap);
        if (!grown) abort();
        b->ptr = grown;
        b->cap = cap;
    }
    memcpy(b->ptr + b->len, bytes, len);
    b->len += len;
    b->ptr[b->len] = '\0';
}

void buf_puts(buf *b, const char *text) { buf_add(b, text, strlen(text)); }

void buf_printf(buf *b, const char *format, ...) {
    va_list args;
    va_start(args, format);
    char small[256];
    int n = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (n < 0) return;
    if ((size_t)n < sizeof small) { buf_add(b, small, (size_t)n); return; }
    char *large = malloc((size_t)n + 1);
    if (!large) abort();
    va_start(args, format);
    vsnprintf(large, (size_t)n + 1, format, args);
    va_end(args);
    buf_add(b, large, (size_t)n);
    free(large);
}

void buf_json_string(buf *b, const char *text) {
    buf_add(b, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        switch (*c) {
        case '"': buf_puts(b, "\\\""); break;
        case '\\': buf_puts(b, "\\\\"); break;
        case '\n': buf_puts(b, "\\n"); break;
        case '\r': buf_puts(b, "\\r"); break;
        case '\t': buf_puts(b, "\\t"); break;
        default:
            if (*c < 0x20) buf_printf(b, "\\u%04x", *c);
            else buf_add(b, (const char *)c, 1);
        }
    }
    buf_add(b, "\"", 1);
}

void buf_free(buf *b) {
    free(b->ptr);
    b->ptr = NULL;
    b->len = b->cap = 0;
}
