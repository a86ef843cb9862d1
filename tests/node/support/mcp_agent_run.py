# Drives the Pydantic AI agent of docs/integration.md (agent.py, imported
# from the working directory) with a scripted FunctionModel, no network: each
# run is one turn; prints what the model read back from each tool call.
import asyncio
import json
import sys

from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent import Chat, agent


def scripted(steps):
    """A model that makes the calls of step i on its i-th request, then says it is done."""

    def reply(messages, info: AgentInfo) -> ModelResponse:
        asked = sum(1 for message in messages if isinstance(message, ModelResponse))
        if asked < len(steps):
            return ModelResponse(parts=[ToolCallPart(name, args) for name, args in steps[asked]])
        return ModelResponse(parts=[TextPart("Done.")])

    return FunctionModel(reply)


async def main() -> None:
    chat, runs = sys.argv[1], json.loads(sys.argv[2])  # runs: [[[[name, args], ...] per step] per run]
    read = []
    async with agent:
        for steps in runs:
            result = await agent.run("Work on the chat.", deps=Chat(chat), model=scripted(steps))
            read.append(
                [
                    {"tool": part.tool_name, "content": part.content, "kind": type(part).__name__}
                    for message in result.all_messages()
                    for part in message.parts
                    if isinstance(part, (ToolReturnPart, RetryPromptPart))
                ]
            )
    print(json.dumps(read))


asyncio.run(main())
