"""clients/openai-agents-memoria pip-installed (with openai-agents from PyPI) into a scratch venv, and the example of
docs/agents.md run there against a real daphne: an OpenAI Agents SDK agent whose model (a stand-in chat-completions
endpoint over real HTTP, the one double allowed) calls search_memory over MCP and answers from what came back; every
tool converts to the SDK's strict mode; the read-only server offers exactly the tools the server marks read-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memoria.mcp.tools import TOOLS
from tests.clients.conftest import Memory
from tests.clients.framework_venv import framework_python, run_script

pytestmark = pytest.mark.django_db(transaction=True)
SCRIPT = Path(__file__).with_name("openai_agents_script.py")


def test_an_agent_answers_from_memory_over_mcp(memory: Memory) -> None:
    python, costs = framework_python("openai-agents-memoria")
    print("openai-agents-memoria venv", costs)
    seen = run_script(python, SCRIPT, memory.url, memory.token, memory.group)

    assert seen["module"].startswith(str(python.parent.parent))
    # Every tool the server lists became a strict function tool (the SDK falls back to non-strict silently).
    assert seen["strict"] == {spec.name: True for spec in TOOLS}
    first, second = seen["model_requests"]
    offered = {tool["function"]["name"]: tool["function"] for tool in first["tools"]}
    assert set(offered) == {spec.name for spec in TOOLS}
    assert offered["search_memory"]["strict"] is True
    assert "$ref" not in json.dumps(offered["search_memory"]["parameters"])

    # The tool ran on the server with the viewer's token, and its answer reached the model: the fact that holds now.
    answered = [message for message in second["messages"] if message["role"] == "tool"]
    assert len(answered) == 1 and answered[0]["tool_call_id"] == "call_1"
    content = json.dumps(answered[0]["content"])  # a list of text parts, as the SDK sends a tool's answer
    assert "Riga" in content and "isError" not in content
    assert seen["final_output"].startswith("From memory: ") and "Riga" in seen["final_output"]

    assert seen["read_only_tools"] == sorted(spec.name for spec in TOOLS if spec.read_only)
    assert "search_memory" in seen["read_only_tools"] and "add_memory" not in seen["read_only_tools"]
