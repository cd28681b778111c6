"""Run by openai-agents-memoria's scratch venv (tests/clients/test_openai_agents_memoria.py), not by pytest: an
OpenAI Agents SDK agent over Memoria's MCP tools against a running daphne, its model a stand-in chat-completions
endpoint served over real HTTP here (the one test double allowed: a remote LLM). Prints one JSON object of what it
saw.

argv: base_url viewer_token group
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import openai_agents_memoria
from agents import Agent, OpenAIChatCompletionsModel, RunContextWrapper, Runner, set_tracing_disabled
from openai import AsyncOpenAI
from openai_agents_memoria import MEMORIA_MCP_CONFIG, memoria_mcp_server

QUESTION = "Where does Maren live now?"


def text_of(message: dict[str, Any]) -> str:
    """A chat message's text: the SDK sends a tool's answer as a list of text parts."""
    content = message["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


class StandInModel(BaseHTTPRequestHandler):
    """First turn: call search_memory for the question; second: answer with the first line of what it returned.
    Every request body is kept, so the test sees what the SDK sent the model."""

    seen: list[dict[str, Any]] = []
    group = ""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        StandInModel.seen.append(body)
        tool_messages = [message for message in body["messages"] if message["role"] == "tool"]
        if not tool_messages:
            arguments = {"group": StandInModel.group, "query": QUESTION}
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "search_memory", "arguments": json.dumps(arguments)},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": "From memory: " + text_of(tool_messages[-1])}
            finish = "stop"
        answer = {
            "id": f"chatcmpl-{len(StandInModel.seen)}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


async def main(base_url: str, token: str, group: str) -> dict[str, Any]:
    set_tracing_disabled(True)
    StandInModel.group = group
    llm = ThreadingHTTPServer(("127.0.0.1", 0), StandInModel)
    threading.Thread(target=llm.serve_forever, daemon=True).start()
    client = AsyncOpenAI(base_url=f"http://127.0.0.1:{llm.server_port}/v1", api_key="stand-in", max_retries=0)
    model = OpenAIChatCompletionsModel(model="stand-in", openai_client=client)
    seen: dict[str, Any] = {"module": openai_agents_memoria.__file__}
    async with memoria_mcp_server(base_url, token) as memory:
        agent = Agent(
            name="assistant",
            instructions="Answer from the user's memory; call search_memory first.",
            model=model,
            mcp_servers=[memory],
            mcp_config=MEMORIA_MCP_CONFIG,
        )
        tools = await agent.get_all_tools(RunContextWrapper(context=None))
        seen["strict"] = {tool.name: tool.strict_json_schema for tool in tools}
        result = await Runner.run(agent, QUESTION)
        seen["final_output"] = result.final_output
    async with memoria_mcp_server(base_url, token, read_only=True) as reader:
        agent = Agent(name="reader", model=model, mcp_servers=[reader], mcp_config=MEMORIA_MCP_CONFIG)
        seen["read_only_tools"] = sorted(tool.name for tool in await agent.get_all_tools(RunContextWrapper(None)))
    seen["model_requests"] = StandInModel.seen
    llm.shutdown()
    return seen


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(*sys.argv[1:4]))))
