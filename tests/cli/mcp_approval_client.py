"""Drives `xcsh mcp --ask all` with the official MCP Python SDK and its
elicitation callback, as a client whose user approves or declines.

Usage: mcp_approval_client.py XCSH PACK WORKDIR

Three sessions over stdio, each opening with `initialize` (2025-11-25):

- "accept": the callback answers `apply`; the files are renamed;
- "decline": the callback answers `decline` with a reason; the action is
  discarded and the result carries the reason;
- "unsupported": no callback, so the client declares no elicitation; the
  apply is an error result and the action stays pending.

Prints one JSON object of what the client saw, for tests/cli/mcp.rs.
"""

from __future__ import annotations

import json
import sys
from typing import Any

try:
    import anyio
    import mcp_types as types
    from mcp import Client, StdioServerParameters, stdio_client
except ImportError as error:  # pragma: no cover - reported by the Rust test
    print(f"the official MCP Python SDK is not installed ({error})", file=sys.stderr)
    sys.exit(3)

from mcp_record import record

STEP_TIMEOUT = 10.0


async def session(xcsh: str, pack: str, work: str, files: list[str], answer: dict[str, Any] | None) -> dict[str, Any]:
    asked: list[dict[str, Any]] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append({"message": params.message, "schema": params.requested_schema})
        return types.ElicitResult(action="accept", content=answer)

    server = StdioServerParameters(command=xcsh, args=["mcp", "--ask", "all", "--plugin", pack], cwd=work)
    out: dict[str, Any] = {}
    options: dict[str, Any] = {"elicitation_callback": elicit} if answer is not None else {}
    async with Client(
        stdio_client(server, errlog=sys.stderr), mode="legacy", read_timeout_seconds=STEP_TIMEOUT, **options
    ) as client:
        rule = {"files": files, "rule": {"kind": "prefix", "prefix": "old-"}}
        with anyio.fail_after(STEP_TIMEOUT):
            await client.call_tool("batch_rename_preview", rule)
            out["apply"] = record(await client.call_tool("resolve", {"action": "apply", "reason": "the model is sure"}))
            listed = await client.list_tools(cache_mode="refresh")
        out["toolsAfterApply"] = [tool.name for tool in listed.tools]
    out["asked"] = asked
    return out


async def main() -> None:
    xcsh, pack, work = sys.argv[1:4]
    out: dict[str, Any] = {}
    out["accept"] = await session(xcsh, pack, work, ["a.txt"], {"decision": "apply"})
    out["decline"] = await session(xcsh, pack, work, ["b.txt"], {"decision": "decline", "reason": "b stays"})
    out["unsupported"] = await session(xcsh, pack, work, ["c.txt"], None)
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    anyio.run(main)
