"""How the `xcsh mcp` test clients record a `tools/call` result.

`modelSees` is what a client that prefers `structuredContent` hands its
model: fast-agent-mcp, for one, gives the model the structured content as
JSON whenever a result has it, and the text blocks only otherwise. The
reminder, refusals and declines must reach the model under such a client
too, so the tests compare `modelSees` with the exact texts.
"""

from __future__ import annotations

import json
from typing import Any

# The `_meta` key under which xcsh puts a result's machine details.
DETAILS_KEY = "xcsh/details"


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if block.type == "text"]


def model_sees(result: Any) -> list[str]:
    """What a structuredContent-first client gives its model."""
    if result.structured_content is not None:
        return [json.dumps(result.structured_content)]
    return texts(result)


def record(result: Any) -> dict[str, Any]:
    return {
        "isError": bool(result.is_error),
        "texts": texts(result),
        "modelSees": model_sees(result),
        "structured": result.structured_content,
        "details": (result.meta or {}).get(DETAILS_KEY),
    }
