/*
 * crashy-c: a C pack that misbehaves on purpose, for the tests: it
 * dereferences NULL, calls abort(), or returns details that are not JSON.
 */
#include <signal.h>
#include <stdlib.h>

#include "xcsh_pack.h"

XCSH_PACK_DEFINE_VERSION;

static void segfault(const XcshCall *call, void *tool_data, XcshStr arguments, XcshOutput *out) {
    (void)call; (void)arguments; (void)out;
    volatile int *nowhere = (volatile int *)tool_data; /* NULL */
    *nowhere = 1;
}

static void aborts(const XcshCall *call, void *tool_data, XcshStr arguments, XcshOutput *out) {
    (void)call; (void)tool_data; (void)arguments; (void)out;
    abort();
}

static void bad_json(const XcshCall *call, void *tool_data, XcshStr arguments, XcshOutput *out) {
    (void)tool_data; (void)arguments;
    call->host->add_text(out, XCSH_STR("here are the details"));
    call->host->set_details(out, XCSH_STR("{not json"));
}

#define NOT_STATED {XCSH_HINT_UNSET, XCSH_HINT_UNSET, XCSH_HINT_UNSET, XCSH_HINT_UNSET}
#define NO_PARAMS XCSH_STR_INIT("{\"type\":\"object\",\"properties\":{}}")

static const XcshTool TOOLS[] = {
    {XCSH_STR_INIT("c_segfault"), XCSH_STR_INIT("Segfault"), XCSH_STR_INIT("Dereferences NULL."), NO_PARAMS, NOT_STATED, segfault, NULL},
    {XCSH_STR_INIT("c_abort"), XCSH_STR_INIT("Abort"), XCSH_STR_INIT("Calls abort()."), NO_PARAMS, NOT_STATED, aborts, NULL},
    {XCSH_STR_INIT("c_bad_json"), XCSH_STR_INIT("Bad JSON"), XCSH_STR_INIT("Returns details that are not JSON."), NO_PARAMS, NOT_STATED, bad_json, NULL},
};

XcshStatus xcsh_pack_entry(const XcshHost *host, XcshPack *pack) {
    (void)host;
    pack->name = XCSH_STR("crashy-c");
    pack->version = XCSH_STR("0.1.0");
    pack->tools = TOOLS;
    pack->tool_count = sizeof TOOLS / sizeof TOOLS[0];
    return XCSH_OK;
}
