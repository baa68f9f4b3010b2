"""Drives `xcsh mcp --http` with the official MCP Python SDK's Streamable
HTTP client, as a hosted or remote client would.

Usage: mcp_http_client.py URL TOKEN-FILE

- "a" and "b": two MCP sessions at once, each previewing its own rename;
  "b" discards its action, then "a" applies its own, in separate POSTs;
- "deleted": previews and closes its session with DELETE;
- "idle": previews and goes away without DELETE (the server's idle
  timeout ends it);
- "refused": raw requests without the token, with a wrong Host and with a
  foreign Origin.

Prints one JSON object of what the client saw, for tests/cli/mcp_http.rs.
"""

from __future__ import annotations

import json
import sys
from typing import Any

try:
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
except ImportError as error:  # pragma: no cover - reported by the Rust test
    print(f"the official MCP Python SDK is not installed ({error})", file=sys.stderr)
    sys.exit(3)

from mcp_record import record

STEP_TIMEOUT = 10.0


def rule(name: str) -> dict[str, Any]:
    return {"files": [name], "rule": {"kind": "prefix", "prefix": "old-"}}


def client(url: str, token: str, *, delete: bool = True) -> Client:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    transport = streamable_http_client(url, http_client=http, terminate_on_close=delete)
    return Client(transport, mode="legacy", read_timeout_seconds=STEP_TIMEOUT)


async def names(session: Client) -> list[str]:
    listed = await session.list_tools(cache_mode="refresh")
    return [tool.name for tool in listed.tools]


async def refused(url: str, token: str) -> dict[str, Any]:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
    }
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    bearer = {"Authorization": f"Bearer {token}"}
    cases = {
        "noToken": base,
        "wrongToken": {**base, "Authorization": "Bearer not-the-token"},
        "wrongHost": {**base, **bearer, "Host": "rebound.example:80"},
        "foreignOrigin": {**base, **bearer, "Origin": "http://evil.example"},
    }
    out: dict[str, Any] = {}
    async with httpx2.AsyncClient() as http:
        for name, headers in cases.items():
            response = await http.post(url, json=initialize, headers=headers)
            out[name] = {"status": response.status_code, "sessionId": response.headers.get("mcp-session-id")}
    return out


async def main() -> None:
    url, token_file = sys.argv[1:3]
    with open(token_file, encoding="utf-8") as file:
        token = file.read().strip()
    out: dict[str, Any] = {}
    with anyio.fail_after(4 * STEP_TIMEOUT):
        async with client(url, token) as a, client(url, token) as b:
            out["aPreview"] = record(await a.call_tool("batch_rename_preview", rule("a.txt")))
            out["bPreview"] = record(await b.call_tool("batch_rename_preview", rule("b.txt")))
            out["bDiscard"] = record(await b.call_tool("resolve", {"action": "discard", "reason": "b stays"}))
            out["aToolsAfterBDiscard"] = await names(a)
            out["bToolsAfterDiscard"] = await names(b)
            out["aApply"] = record(await a.call_tool("resolve", {"action": "apply", "reason": "a goes"}))
            out["aToolsAfterApply"] = await names(a)
        async with client(url, token) as deleted:
            out["deletedPreview"] = record(await deleted.call_tool("batch_rename_preview", rule("c.txt")))
        async with client(url, token, delete=False) as idle:
            out["idlePreview"] = record(await idle.call_tool("batch_rename_preview", rule("d.txt")))
        out["refused"] = await refused(url, token)
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    anyio.run(main)
