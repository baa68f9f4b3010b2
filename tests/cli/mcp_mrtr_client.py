"""Drives `xcsh mcp --ask all` with the official MCP Python SDK as a
2026-07-28 client, which is asked through input-required results.

Usage: mcp_mrtr_client.py XCSH PACK WORKDIR

Three sessions over stdio, each negotiating 2026-07-28 through
`server/discover`:

- "accept": the SDK drives the rounds through the elicitation callback,
  which answers `apply`; the file is renamed;
- "decline": the callback answers `decline` with a reason; the action is
  discarded and the result carries the reason;
- "unsupported": no callback, so the requests declare no elicitation; the
  apply is an error result and the action stays pending;
- "refused": the rounds are driven by hand: the input-required result, a
  retry with a forged state, one without a state, one without an answer,
  a cancelled answer, one whose action is no longer the newest, the
  reuse of an answered state, a valid state and answer on a retry that
  asks to discard instead, and a state whose action was discarded since;
  none of them applies or discards anything.

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

from mcp_record import model_sees, texts

STEP_TIMEOUT = 10.0
APPLY = {"action": "apply", "reason": "the model is sure"}
DISCARD = {"action": "discard", "reason": "the model changed its mind"}
ACCEPT = {"approval": types.ElicitResult(action="accept", content={"decision": "apply"})}


def record(result: Any) -> dict[str, Any]:
    if isinstance(result, types.InputRequiredResult):
        requests = result.input_requests or {}
        return {
            "inputRequired": {key: request.params.message for key, request in requests.items()},
            "schema": {key: request.params.requested_schema for key, request in requests.items()},
            "hasState": bool(result.request_state),
        }
    return {
        "isError": bool(result.is_error),
        "texts": texts(result),
        "modelSees": model_sees(result),
    }


def rule(name: str) -> dict[str, Any]:
    return {"files": [name], "rule": {"kind": "prefix", "prefix": "old-"}}


async def names(client: Client) -> list[str]:
    listed = await client.list_tools(cache_mode="refresh")
    return [tool.name for tool in listed.tools]


async def session(xcsh: str, pack: str, work: str, name: str, answer: dict[str, Any] | None) -> dict[str, Any]:
    asked: list[dict[str, Any]] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append({"message": params.message, "schema": params.requested_schema})
        return types.ElicitResult(action="accept", content=answer)

    server = StdioServerParameters(command=xcsh, args=["mcp", "--ask", "all", "--plugin", pack], cwd=work)
    out: dict[str, Any] = {}
    options: dict[str, Any] = {"elicitation_callback": elicit} if answer is not None else {}
    async with Client(
        stdio_client(server, errlog=sys.stderr), mode="auto", read_timeout_seconds=STEP_TIMEOUT, **options
    ) as client:
        out["protocolVersion"] = client.protocol_version
        with anyio.fail_after(STEP_TIMEOUT):
            await names(client)
            await client.call_tool("batch_rename_preview", rule(name))
            await names(client)
            out["apply"] = record(await client.call_tool("resolve", APPLY))
            out["toolsAfterApply"] = await names(client)
    out["asked"] = asked
    return out


async def refused(xcsh: str, pack: str, work: str) -> dict[str, Any]:
    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("this session answers by hand")

    server = StdioServerParameters(command=xcsh, args=["mcp", "--ask", "all", "--plugin", pack], cwd=work)
    out: dict[str, Any] = {}
    async with Client(
        stdio_client(server, errlog=sys.stderr), mode="auto", read_timeout_seconds=STEP_TIMEOUT, elicitation_callback=elicit
    ) as client:
        raw = client.session

        async def resolve(**retry: Any) -> Any:
            return await raw.call_tool("resolve", APPLY, allow_input_required=True, **retry)

        with anyio.fail_after(STEP_TIMEOUT):
            await names(client)
            await client.call_tool("batch_rename_preview", rule("d.txt"))
            await names(client)
            first = await resolve()
            out["first"] = record(first)
            state = first.request_state
            out["forged"] = record(await resolve(input_responses=ACCEPT, request_state="xcsh-approval-forged"))
            out["noState"] = record(await resolve(input_responses=ACCEPT))
            again = await resolve()
            out["noAnswer"] = record(await resolve(request_state=again.request_state))
            cancelled = await resolve()
            cancel = {"approval": types.ElicitResult(action="cancel")}
            out["cancel"] = record(await resolve(input_responses=cancel, request_state=cancelled.request_state))
            stale = await resolve()
            await client.call_tool("batch_rename_preview", rule("e.txt"))
            out["stale"] = record(await resolve(input_responses=ACCEPT, request_state=stale.request_state))
            out["reused"] = record(await resolve(input_responses=ACCEPT, request_state=stale.request_state))
            out["firstStateNowStale"] = record(await resolve(input_responses=ACCEPT, request_state=state))
            # A valid state and the person's answer, on a retry that asks
            # for something else than the apply they were asked about.
            asked = await resolve()
            out["discardRetry"] = record(
                await raw.call_tool(
                    "resolve", DISCARD, allow_input_required=True, input_responses=ACCEPT, request_state=asked.request_state
                )
            )
            # A state whose action the model discarded meanwhile is gone.
            gone = await resolve()
            await raw.call_tool("resolve", DISCARD, allow_input_required=True)
            out["goneState"] = record(await resolve(input_responses=ACCEPT, request_state=gone.request_state))
            out["toolsAtEnd"] = await names(client)
    return out


async def main() -> None:
    xcsh, pack, work = sys.argv[1:4]
    out: dict[str, Any] = {}
    out["accept"] = await session(xcsh, pack, work, "a.txt", {"decision": "apply"})
    out["decline"] = await session(xcsh, pack, work, "b.txt", {"decision": "decline", "reason": "b stays"})
    out["unsupported"] = await session(xcsh, pack, work, "c.txt", None)
    out["refused"] = await refused(xcsh, pack, work)
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    anyio.run(main)
