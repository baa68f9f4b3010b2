/*
 * A small JSON reader and writer for the example C packs: enough for a
 * tool's arguments (already checked against its schema by the host) and
 * its details. Not a general-purpose library.
 */
#ifndef XCSH_EXAMPLE_JSON_H
#define XCSH_EXAMPLE_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json {
    json_kind kind;
    char *string;          /* JSON_STRING: decoded, NUL-terminated */
    size_t count;          /* JSON_ARRAY, JSON_OBJECT: how many */
    char **keys;           /* JSON_OBJECT: the keys */
    struct json *items;    /* JSON_ARRAY, JSON_OBJECT: the values */
} json;

/* Parses `len` bytes; NULL on malformed input. Free with json_free. */
json *json_parse(const char *text, size_t len);
void json_free(json *value);
/* The member `key` of an object, or NULL. */
const json *json_get(const json *object, const char *key);
/* The string member `key` of an object, or NULL. */
const char *json_get_string(const json *object, const char *key);

/* A growing, NUL-terminated string. */
typedef struct {
    char *ptr;
    size_t len;
    size_t cap;
} buf;

void buf_add(buf *b, const char *bytes, size_t len);
void buf_puts(buf *b, const char *text);
void buf_printf(buf *b, const char *format, ...);
/* Appends `text` as a JSON string literal. */
void buf_json_string(buf *b, const char *text);
void buf_free(buf *b);

#endif
