"""Drives `xcsh mcp --http` with the official MCP Python SDK's Streamable
HTTP client in its default mode, which negotiates 2026-07-28 through
`server/discover`: that revision has no sessions, so every request is a
POST of its own.

Usage: mcp_http_modern_client.py URL TOKEN-FILE

The server runs with `--ask all`. Two clients, one after the other: the
first previews a rename and applies it with `resolve` in a later POST,
which asks the person through an input-required result (the SDK puts it to
the elicitation callback, which answers `apply`, and retries the call with
the answer in yet another POST); the second previews another and leaves it
pending (the server's shutdown discards it). Then a raw 2026-07-28 `ping`,
which that revision removed.

Prints one JSON object of what the clients saw, for
tests/cli/mcp_http_modern.rs.
"""

from __future__ import annotations

import json
import sys
from typing import Any

try:
    import anyio
    import httpx2
    import mcp_types as types
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
except ImportError as error:  # pragma: no cover - reported by the Rust test
    print(f"the official MCP Python SDK is not installed ({error})", file=sys.stderr)
    sys.exit(3)

from mcp_record import record

STEP_TIMEOUT = 10.0
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def rule(name: str) -> dict[str, Any]:
    return {"files": [name], "rule": {"kind": "prefix", "prefix": "old-"}}


def client(url: str, token: str, asked: list[str] | None = None) -> Client:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert asked is not None
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "apply"})

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    options: dict[str, Any] = {"elicitation_callback": elicit} if asked is not None else {}
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=STEP_TIMEOUT, **options)


async def names(session: Client) -> list[str]:
    listed = await session.list_tools(cache_mode="refresh")
    return [tool.name for tool in listed.tools]


async def raw_ping(url: str, token: str) -> dict[str, Any]:
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "ping",
    }
    body = {"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"_meta": META}}
    async with httpx2.AsyncClient() as http:
        response = await http.post(url, json=body, headers=headers)
    return {"status": response.status_code, "sessionId": response.headers.get("mcp-session-id"), "body": response.json()}


async def main() -> None:
    url, token_file = sys.argv[1:3]
    with open(token_file, encoding="utf-8") as file:
        token = file.read().strip()
    out: dict[str, Any] = {}
    with anyio.fail_after(4 * STEP_TIMEOUT):
        asked: list[str] = []
        async with client(url, token, asked) as first:
            out["protocolVersion"] = first.protocol_version
            out["toolsAtStart"] = await names(first)
            out["preview"] = record(await first.call_tool("batch_rename_preview", rule("m.txt")))
            out["toolsWhilePending"] = await names(first)
            out["apply"] = record(await first.call_tool("resolve", {"action": "apply", "reason": "m goes"}))
            out["toolsAfterApply"] = await names(first)
        out["asked"] = asked
        async with client(url, token) as second:
            out["secondProtocolVersion"] = second.protocol_version
            out["leftPending"] = record(await second.call_tool("batch_rename_preview", rule("n.txt")))
        out["ping"] = await raw_ping(url, token)
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    anyio.run(main)
