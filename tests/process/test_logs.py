"""The logs of `serve` with CE_LOG_JSON=true: every line of both streams is a JSON object, the
libraries' (uvicorn, the MCP SDK) too; each request has its access line, under its request id,
and so have the API calls an MCP tool makes for it."""

import json
from pathlib import Path
from typing import Any

from tests.process.launcher import client, free_port, launch, service_env, wait_ready

TRACE = "trace-logs-1"


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_json_logs_hold_every_line_and_the_request_id(tmp_path: Path) -> None:
    port = free_port()
    env = service_env(tmp_path / "data", port, CE_LOG_JSON="true")
    with launch("serve", env, tmp_path / "logs", "serve") as server:
        with client(port) as anonymous:
            wait_ready(server, anonymous)
        key = (tmp_path / "data" / "api-key").read_text().strip()
        with client(port, key) as http:
            headers = {"X-Request-ID": TRACE, "Accept": "application/json, text/event-stream"}
            # A tool call the MCP SDK logs at INFO (its error), inside the request.
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "build_context",
                    "arguments": {"agent_id": "nobody", "input": "Hi"},
                },
            }
            answered = http.post("/mcp", json=call, headers=headers)
            assert answered.status_code == 200, answered.text
            assert answered.json()["result"]["isError"] is True
        server.terminate()
        out, err = _lines(server.out()), _lines(server.err())  # each line parses, or this fails
    libraries = {line.get("logger") for line in err}
    assert "uvicorn.error" in libraries
    assert any("Application startup complete" in line["event"] for line in err)
    [access] = [line for line in out if line["event"] == "http.request" and line["route"] == "/mcp"]
    assert (access["request_id"], access["method"], access["status"]) == (TRACE, "POST", 200)
    assert access["ms"] > 0
    # The tool's call of the API (in process) logs under the id of the MCP request it serves.
    [inner] = [line for line in out if line.get("route") == "/context/build"]
    assert (inner["route"], inner["status"], inner["request_id"]) == ("/context/build", 404, TRACE)
    # The SDK's line about the failed call is JSON too (its task runs outside the request's
    # logging context: it has no request id).
    [tool] = [line for line in err if "build_context" in line["event"]]
    assert tool["logger"] == "mcp.server.mcpserver.server"
    assert not [line for line in err if "Terminating session" in line["event"]]
