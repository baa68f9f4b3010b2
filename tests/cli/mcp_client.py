"""Drives `xcsh mcp` with the official MCP Python SDK, as a real client would.

Usage: mcp_client.py XCSH PACK WORKDIR [XCSH-OPTION...]

Spawns `XCSH mcp [XCSH-OPTION...] --plugin PACK` in WORKDIR over stdio twice
(e.g. with `--isolate`, the pack in a process of its own):

- "handshake": opens with `initialize` (the revisions up to 2025-11-25 that
  deployed clients speak), lists tools, previews and resolves batch renames
  (apply, then discard), makes invalid calls, leaves one preview pending and
  disconnects;
- "modern": negotiates 2026-07-28 through `server/discover`, hears
  `notifications/tools/list_changed` on a `subscriptions/listen` stream,
  and also disconnects with a preview pending.

Prints one JSON object describing what the client saw, for tests/cli/mcp.rs
to compare with exact strings. Every wait is bounded, so a hung server fails
the run instead of hanging it.
"""

from __future__ import annotations

import json
import sys
import tempfile
from typing import Any

try:
    import anyio
    import mcp_types as types
    from mcp import Client, MCPError, StdioServerParameters, stdio_client
except ImportError as error:  # pragma: no cover - reported by the Rust test
    print(
        f"the official MCP Python SDK is not installed ({error}); "
        "the tests install it themselves (see tests/src/python.rs)",
        file=sys.stderr,
    )
    sys.exit(3)

from mcp_record import record as call_record

STEP_TIMEOUT = 10.0
RUN_TIMEOUT = 60.0
LIST_CHANGED = "notifications/tools/list_changed"
# Options for `xcsh mcp` after the three positional arguments.
EXTRA_ARGS: list[str] = sys.argv[4:]


class Notifications:
    """Counts `notifications/tools/list_changed` as the session surfaces them."""

    def __init__(self) -> None:
        self.list_changed = 0
        self.other: list[str] = []

    async def handle(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.other.append(f"exception: {message}")
            return
        method = getattr(getattr(message, "root", message), "method", None)
        if method == LIST_CHANGED:
            self.list_changed += 1
        else:
            self.other.append(str(method))

    async def wait_for(self, count: int) -> int:
        with anyio.fail_after(STEP_TIMEOUT):
            while self.list_changed < count:
                await anyio.sleep(0.01)
        return self.list_changed


async def tool_names(client: Client) -> list[str]:
    with anyio.fail_after(STEP_TIMEOUT):
        listed = await client.list_tools(cache_mode="refresh")
    return [tool.name for tool in listed.tools]


async def call(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    with anyio.fail_after(STEP_TIMEOUT):
        return call_record(await client.call_tool(name, arguments))


async def protocol_error(client: Client, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
    request = types.Request(method=method, params=params)
    try:
        with anyio.fail_after(STEP_TIMEOUT):
            await client.session.send_request(request, types.EmptyResult)
    except MCPError as error:
        return {"code": error.code, "message": error.error.message}
    return {"code": None, "message": "no error"}


async def session(xcsh: str, pack: str, work: str, errlog: Any) -> dict[str, Any]:
    notes = Notifications()
    server = StdioServerParameters(command=xcsh, args=["mcp", *EXTRA_ARGS, "--plugin", pack], cwd=work)
    out: dict[str, Any] = {}
    async with Client(
        stdio_client(server, errlog=errlog),
        mode="legacy",
        message_handler=notes.handle,
        read_timeout_seconds=STEP_TIMEOUT,
    ) as client:
        out["protocolVersion"] = client.protocol_version
        out["serverName"] = client.server_info.name if client.server_info else None
        tools_capability = client.server_capabilities.tools
        out["listChangedCapability"] = bool(tools_capability and tools_capability.list_changed)

        with anyio.fail_after(STEP_TIMEOUT):
            listed = await client.list_tools(cache_mode="refresh")
        out["toolsAtStart"] = [tool.name for tool in listed.tools]
        preview_tool = next(t for t in listed.tools if t.name == "batch_rename_preview")
        out["previewAnnotations"] = preview_tool.annotations.model_dump(by_alias=True, exclude_none=True)
        out["previewSchemaRequired"] = preview_tool.input_schema.get("required")

        drafts = {
            "files": ["draft-a.md", "draft-b.md"],
            "rule": {"kind": "regex", "pattern": "^draft-", "replacement": "final-"},
        }
        out["preview"] = await call(client, "batch_rename_preview", drafts)
        out["listChangedAfterPreview"] = await notes.wait_for(1)
        with anyio.fail_after(STEP_TIMEOUT):
            listed = await client.list_tools(cache_mode="refresh")
        out["toolsWhilePending"] = [tool.name for tool in listed.tools]
        resolve_tool = next(t for t in listed.tools if t.name == "resolve")
        out["resolveAnnotations"] = resolve_tool.annotations.model_dump(by_alias=True, exclude_none=True)

        out["apply"] = await call(client, "resolve", {"action": "apply", "reason": "the drafts are final"})
        out["listChangedAfterApply"] = await notes.wait_for(2)
        out["toolsAfterApply"] = await tool_names(client)

        notes_rule = {"files": ["notes.txt"], "rule": {"kind": "suffix", "suffix": "-old"}}
        out["secondPreview"] = await call(client, "batch_rename_preview", notes_rule)
        out["listChangedAfterSecondPreview"] = await notes.wait_for(3)
        out["discard"] = await call(client, "resolve", {"action": "discard", "reason": "the notes are current"})
        out["listChangedAfterDiscard"] = await notes.wait_for(4)
        out["toolsAfterDiscard"] = await tool_names(client)

        out["unknownTool"] = await call(client, "no_such_tool", {})
        out["invalidArguments"] = await call(client, "batch_rename_preview", {"files": []})
        out["resolveWithNothingPending"] = await call(client, "resolve", {"action": "apply", "reason": "r"})
        out["unknownMethod"] = await protocol_error(client, "xcsh/no_such_method", None)
        out["callWithoutName"] = await protocol_error(client, "tools/call", {"arguments": {}})

        out["leftPending"] = await call(client, "batch_rename_preview", notes_rule)
        out["listChangedAtEnd"] = await notes.wait_for(5)
        out["otherNotifications"] = notes.other
    return out


async def next_event(subscription: Any) -> str:
    with anyio.fail_after(STEP_TIMEOUT):
        async for event in subscription:
            return type(event).__name__
    return "stream ended"


async def modern_session(xcsh: str, pack: str, work: str, errlog: Any) -> dict[str, Any]:
    server = StdioServerParameters(command=xcsh, args=["mcp", *EXTRA_ARGS, "--plugin", pack], cwd=work)
    out: dict[str, Any] = {}
    async with Client(
        stdio_client(server, errlog=errlog), mode="auto", read_timeout_seconds=STEP_TIMEOUT
    ) as client:
        out["protocolVersion"] = client.protocol_version
        out["toolsAtStart"] = await tool_names(client)
        with anyio.fail_after(STEP_TIMEOUT):
            listening = client.listen(tools_list_changed=True)
            subscription = await listening.__aenter__()
        try:
            out["honoredToolsListChanged"] = subscription.honored.tools_list_changed
            rule = {"files": ["modern.txt"], "rule": {"kind": "prefix", "prefix": "old-"}}
            out["preview"] = await call(client, "batch_rename_preview", rule)
            out["eventAfterPreview"] = await next_event(subscription)
            out["toolsWhilePending"] = await tool_names(client)
            out["discard"] = await call(client, "resolve", {"action": "discard", "reason": "not now"})
            out["eventAfterDiscard"] = await next_event(subscription)
            out["toolsAfterDiscard"] = await tool_names(client)
            out["leftPending"] = await call(client, "batch_rename_preview", rule)
            out["eventAtEnd"] = await next_event(subscription)
        finally:
            await listening.__aexit__(None, None, None)
    return out


async def main() -> None:
    xcsh, pack, work = sys.argv[1:4]
    out: dict[str, Any] = {}
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        with anyio.fail_after(RUN_TIMEOUT):
            out["handshake"] = await session(xcsh, pack, work, errlog)
        errlog.seek(0)
        out["handshake"]["serverStderr"] = errlog.read()
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:
        with anyio.fail_after(RUN_TIMEOUT):
            out["modern"] = await modern_session(xcsh, pack, work, errlog)
        errlog.seek(0)
        out["modern"]["serverStderr"] = errlog.read()
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    anyio.run(main)
