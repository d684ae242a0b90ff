"""An OpenAI-compatible chat-completions server backed by the offline scripted model.

The whole agent then runs through ``langchain-openai`` exactly as against OpenAI or vLLM::

    python -m ariadnegraph.testing.openai_server --port 8765
    OPENAI_API_KEY=test ariadne play --env cooking:1 --model openai:scripted --base-url http://127.0.0.1:8765/v1

Endpoints (standard library only, bound to 127.0.0.1):

* ``POST /v1/chat/completions``: OpenAI request messages (system/developer, user, assistant with
  ``tool_calls``, tool) become LangChain messages; function ``tools`` and ``tool_choice`` are bound
  with ``bind_tools``; a ``response_format`` of type ``json_schema`` (what ``with_structured_output``
  sends by default) is bound as one more tool named after the schema, and the model's call of it is
  returned as the JSON ``content`` of the reply. ``stream: true`` answers as server-sent events
  (with a usage chunk when ``stream_options.include_usage``). ``usage`` comes from the model's
  ``usage_metadata``.
* ``GET /v1/models``.
* ``GET|POST|DELETE /admin/faults``: read, replace or clear the :class:`FaultPlan`;
  ``GET /admin/requests``: how many requests came in, and the latest of them (with the
  ``Authorization`` header each presented: a test of where keys go reads it).

Faults are injected per chat request by a :class:`FaultPlan` (also a constructor argument): each
:class:`Fault` is a spec such as ``{"after": 5, "kind": "429", "times": 2}`` -- let 5 chat requests
through, then spoil the next 2. Kinds: see :data:`testing.faults.FAULT_KINDS`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from ..models.usage import estimate_tokens
from .faults import Fault, FaultPlan

HOST = "127.0.0.1"
DEFAULT_MODEL_ID = "scripted"
REQUEST_LOG = 10_000  # latest requests kept for /admin/requests

IGNORED_SCHEMA_REPLY = "Sure! I think the best thing to do now is to look around."


class RequestError(ValueError):
    """A malformed request: answered with HTTP 400 in OpenAI's error format."""


# -- OpenAI <-> LangChain ------------------------------------------------------------------------
def _content_text(content: Any) -> str:
    """OpenAI message content: a string, null, or a list of parts (text parts are joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    raise RequestError(f"message content must be a string or a list of parts, got {type(content).__name__}")


def to_langchain_messages(messages: Sequence[Mapping[str, Any]]) -> list[BaseMessage]:
    """OpenAI chat messages as LangChain messages."""
    if not isinstance(messages, list) or not messages:
        raise RequestError("'messages' must be a non-empty list")
    converted: list[BaseMessage] = []
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise RequestError(f"messages[{index}] must be an object")
        role = message.get("role")
        text = _content_text(message.get("content"))
        if role in ("system", "developer"):
            converted.append(SystemMessage(content=text))
        elif role == "user":
            converted.append(HumanMessage(content=text))
        elif role == "assistant":
            tool_calls, invalid = [], []
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                arguments = function.get("arguments") or "{}"
                try:
                    args = json.loads(arguments) if isinstance(arguments, str) else dict(arguments)
                    if not isinstance(args, dict):
                        raise ValueError("arguments are not an object")
                    tool_calls.append(
                        {"name": function.get("name") or "", "args": args, "id": call.get("id"), "type": "tool_call"}
                    )
                except (ValueError, TypeError) as exc:
                    invalid.append(
                        {
                            "name": function.get("name"),
                            "args": str(arguments),
                            "id": call.get("id"),
                            "error": str(exc),
                            "type": "invalid_tool_call",
                        }
                    )
            converted.append(AIMessage(content=text, tool_calls=tool_calls, invalid_tool_calls=invalid))
        elif role in ("tool", "function"):
            call_id = message.get("tool_call_id") or message.get("name") or ""
            converted.append(ToolMessage(content=text, tool_call_id=call_id, name=message.get("name")))
        else:
            raise RequestError(f"messages[{index}] has an unknown role {role!r}")
    return converted


def _function_tools(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    tools = body.get("tools") or []
    if not isinstance(tools, list):
        raise RequestError("'tools' must be a list")
    found = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if tool.get("type", "function") == "function" and isinstance(function, Mapping) and function.get("name"):
            found.append({"type": "function", "function": dict(function)})
    return found


def _schema_tool(response_format: Any) -> dict[str, Any] | None:
    """A ``json_schema`` response format as the tool the model must call."""
    if not isinstance(response_format, Mapping) or response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema") or {}
    return {
        "type": "function",
        "function": {
            "name": spec.get("name") or "response",
            "description": spec.get("description") or "",
            "parameters": spec.get("schema") or {"type": "object", "properties": {}},
        },
    }


def _tool_choice(choice: Any) -> Any:
    """OpenAI ``tool_choice`` in the form LangChain's ``bind_tools`` takes."""
    if isinstance(choice, Mapping):
        return (choice.get("function") or {}).get("name") or "auto"
    return choice


def _call_id(reply: AIMessage, index: int) -> str:
    seed = json.dumps([c.get("args") for c in reply.tool_calls], sort_keys=True, default=str)
    return "call_" + hashlib.sha1(f"{seed}|{index}".encode()).hexdigest()[:16]


def to_openai_message(reply: AIMessage, schema_name: str | None = None) -> tuple[dict[str, Any], str]:
    """A LangChain reply as an OpenAI assistant message, and its finish reason. A call of the
    ``json_schema`` tool becomes the JSON content of the reply."""
    text = reply.content if isinstance(reply.content, str) else _content_text(reply.content)
    calls = list(reply.tool_calls or [])
    if schema_name and calls and calls[0]["name"] == schema_name:
        return {"role": "assistant", "content": json.dumps(calls[0]["args"]), "refusal": None}, "stop"
    if calls:
        tool_calls = [
            {
                "id": call.get("id") or _call_id(reply, i),
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call.get("args") or {})},
            }
            for i, call in enumerate(calls)
        ]
        return {"role": "assistant", "content": text or None, "refusal": None, "tool_calls": tool_calls}, "tool_calls"
    return {"role": "assistant", "content": text, "refusal": None}, "stop"


def _usage(reply: AIMessage, messages: Sequence[BaseMessage], message: Mapping[str, Any]) -> dict[str, int]:
    metadata = getattr(reply, "usage_metadata", None) or {}
    if metadata:
        prompt, completion = int(metadata.get("input_tokens", 0)), int(metadata.get("output_tokens", 0))
    else:  # a model that reports nothing: estimate (~4 characters per token)
        prompt = sum(estimate_tokens(m.content if isinstance(m.content, str) else str(m.content)) for m in messages)
        completion = estimate_tokens(json.dumps(message))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


# -- the server ------------------------------------------------------------------------------------
class ChatCompletionsServer(ThreadingHTTPServer):
    """OpenAI chat completions on ``127.0.0.1:port`` (0: a free port), answered by ``model``
    (default: a fresh :class:`~ariadnegraph.scripted.ScriptedChatModel`)."""

    daemon_threads = True
    request_queue_size = 64
    _thread: threading.Thread | None = None  # set by serve()
    allow_reuse_address = True

    def __init__(
        self,
        port: int = 0,
        *,
        model: BaseChatModel | None = None,
        faults: FaultPlan | Iterable[Fault | Mapping[str, Any]] | None = None,
        api_key: str | None = None,
        model_id: str = DEFAULT_MODEL_ID,
        verbose: bool = False,
    ) -> None:
        if model is None:
            from .scripted import ScriptedChatModel

            model = ScriptedChatModel()
        self.model = model
        self.faults = faults if isinstance(faults, FaultPlan) else FaultPlan(faults or ())
        self.api_key = api_key
        self.model_id = model_id
        self.verbose = verbose
        self.started = int(time.time())
        self._lock = threading.Lock()
        self._ids = 0
        self.chat_requests = 0
        self.requests: deque[dict[str, Any]] = deque(maxlen=REQUEST_LOG)
        super().__init__((HOST, port), _Handler)

    @property
    def port(self) -> int:
        return self.server_address[1]

    @property
    def url(self) -> str:
        """The base URL clients use (``.../v1``)."""
        return f"http://{HOST}:{self.port}/v1"

    def close(self) -> None:
        """Stop serving (if serving) and release the port."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.server_close()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _next_id(self) -> str:
        with self._lock:
            self._ids += 1
            return f"chatcmpl-{self.port}-{self._ids:06d}"

    def _record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(entry)

    def complete(self, body: Mapping[str, Any]) -> tuple[dict[str, Any], list[BaseMessage]]:
        """One chat completion (no faults): the OpenAI response body, and the prompt as LangChain
        messages."""
        if not isinstance(body, Mapping):
            raise RequestError("the request body must be a JSON object")
        messages = to_langchain_messages(body.get("messages"))  # type: ignore[arg-type]
        choice = _tool_choice(body.get("tool_choice"))
        tools = [] if choice == "none" else _function_tools(body)
        if isinstance(choice, str) and choice not in ("auto", "required", "any", "none"):
            tools = [t for t in tools if t["function"]["name"] == choice] or tools
        schema = _schema_tool(body.get("response_format"))
        schema_name = schema["function"]["name"] if schema else None
        if schema is not None:
            tools = [schema, *[t for t in tools if t["function"]["name"] != schema_name]]
            if choice in (None, "auto") and len(tools) == 1:
                choice = schema_name
        runnable: Any = self.model
        if tools:
            runnable = self.model.bind_tools(tools, tool_choice=choice if choice not in (None, "none") else None)
        stop = body.get("stop")
        reply = runnable.invoke(messages, stop=[stop] if isinstance(stop, str) else stop)
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=str(getattr(reply, "content", reply)))
        message, finish = to_openai_message(reply, schema_name)
        response = {
            "id": self._next_id(),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model_id,
            "system_fingerprint": "ariadnegraph-scripted",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": _usage(reply, messages, message),
        }
        return response, messages


def _stream_events(response: Mapping[str, Any], include_usage: bool) -> bytes:
    """A completed response as the server-sent events of a streamed one."""
    base = {k: response[k] for k in ("id", "created", "model", "system_fingerprint")}
    base["object"] = "chat.completion.chunk"
    chunks = []
    for choice in response["choices"]:
        message, index = choice["message"], choice["index"]
        chunks.append(
            {
                **base,
                "choices": [
                    {
                        "index": index,
                        "delta": {"role": "assistant", "content": ""},
                        "logprobs": None,
                        "finish_reason": None,
                    }
                ],
            }
        )
        if message.get("content"):
            chunks.append(
                {
                    **base,
                    "choices": [
                        {
                            "index": index,
                            "delta": {"content": message["content"]},
                            "logprobs": None,
                            "finish_reason": None,
                        }
                    ],
                }
            )
        for i, call in enumerate(message.get("tool_calls") or []):
            delta = {"tool_calls": [{"index": i, **call}]}
            chunks.append(
                {**base, "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": None}]}
            )
        chunks.append(
            {
                **base,
                "choices": [{"index": index, "delta": {}, "logprobs": None, "finish_reason": choice["finish_reason"]}],
            }
        )
    if include_usage:
        chunks.append({**base, "choices": [], "usage": response.get("usage")})
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def _error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server: ChatCompletionsServer
    protocol_version = "HTTP/1.1"
    server_version = "ariadnegraph-openai/0.1"

    # -- plumbing ----------------------------------------------------------------------------------
    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            sys.stderr.write(f"openai_server: {self.address_string()} {format % args}\n")

    def _send(
        self, status: int, body: bytes, content_type: str = "application/json", headers: Mapping[str, str] | None = None
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. its timeout)
            self.close_connection = True

    def _json(self, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> None:
        self._send(status, json.dumps(payload).encode(), headers=headers)

    def _error(
        self, status: int, message: str, kind: str, code: str | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        self._json(status, _error_body(message, kind, code), headers)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise RequestError(f"the request body is not JSON: {exc}") from exc

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[3:] if path.startswith("/v1/") else path

    def _authorized(self) -> bool:
        if not self.server.api_key or self.headers.get("Authorization") == f"Bearer {self.server.api_key}":
            return True
        self._error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        return False

    # -- verbs -------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        route = self._route()
        if route == "/models":
            if self._authorized():
                self._json(
                    200,
                    {
                        "object": "list",
                        "data": [
                            {
                                "id": self.server.model_id,
                                "object": "model",
                                "created": self.server.started,
                                "owned_by": "ariadnegraph",
                            }
                        ],
                    },
                )
        elif route == "/admin/faults":
            self._json(200, self.server.faults.to_dict())
        elif route == "/admin/requests":
            with self.server._lock:
                payload = {"chat_requests": self.server.chat_requests, "requests": list(self.server.requests)[-100:]}
            self._json(200, payload)
        else:
            self._error(404, f"no route {self.path}", "invalid_request_error", "not_found")

    def do_DELETE(self) -> None:
        if self._route() == "/admin/faults":
            self.server.faults.clear()
            self._json(200, self.server.faults.to_dict())
        else:
            self._error(404, f"no route {self.path}", "invalid_request_error", "not_found")

    def do_POST(self) -> None:
        route = self._route()
        if route == "/chat/completions" and not self._authorized():
            return
        try:
            body = self._body()
        except RequestError as exc:
            self._error(400, str(exc), "invalid_request_error")
            return
        if route == "/admin/faults":
            try:
                if not isinstance(body, (list, Mapping)):
                    raise ValueError('POST /admin/faults takes a fault spec, a list of them, or {"faults": [...]}')
                self.server.faults.set(body)
            except (ValueError, TypeError) as exc:
                self._error(400, str(exc), "invalid_request_error")
                return
            self._json(200, self.server.faults.to_dict())
        elif route == "/chat/completions":
            self._chat(body)
        else:
            self._error(404, f"no route {self.path}", "invalid_request_error", "not_found")

    def _chat(self, body: Any) -> None:
        server = self.server
        with server._lock:
            server.chat_requests += 1
            number = server.chat_requests
        entry: dict[str, Any] = {
            "n": number,
            "time": time.time(),
            "model": body.get("model") if isinstance(body, Mapping) else None,
            "stream": bool(isinstance(body, Mapping) and body.get("stream")),
            "authorization": self.headers.get("Authorization"),
        }  # what a client sends as its key
        if isinstance(body, Mapping):
            entry["tools"] = (
                [t["function"]["name"] for t in _function_tools(body)]
                if isinstance(body.get("tools") or [], list)
                else []
            )
            schema = _schema_tool(body.get("response_format"))
            entry["response_format"] = schema["function"]["name"] if schema else None
        fault = server.faults.next(body if isinstance(body, Mapping) else {})
        entry["fault"] = fault.kind if fault else None
        reply = self._answer(body, fault, entry)
        server._record(entry)  # before answering: a client that has its reply finds the request logged
        if reply is None:  # disconnect: close the connection without a word
            self.close_connection = True
        else:
            self._send(*reply)

    def _answer(
        self, body: Any, fault: Fault | None, entry: dict[str, Any]
    ) -> tuple[int, bytes, str, dict[str, str]] | None:
        """(status, body, content type, headers) of the reply to one chat request, faults applied."""
        kind = fault.kind if fault else None

        def error(status: int, message: str, kind: str, code: str | None = None, headers: dict[str, str] | None = None):
            entry["status"] = status
            return status, json.dumps(_error_body(message, kind, code)).encode(), "application/json", headers or {}

        if kind == "429":
            wait = fault.retry_after  # type: ignore[union-attr]
            headers = {"Retry-After": f"{wait:g}", "retry-after-ms": str(round(wait * 1000))}
            return error(429, "Rate limit reached (injected fault).", "requests", "rate_limit_exceeded", headers)
        if kind == "500":
            return error(500, "The server had an error while processing your request (injected fault).", "server_error")
        if kind == "disconnect":
            entry["status"] = None
            return None
        if kind == "delay":
            time.sleep(fault.seconds)  # type: ignore[union-attr]
        try:
            response, _ = self.server.complete(body)
        except RequestError as exc:
            return error(400, str(exc), "invalid_request_error")
        except Exception as exc:  # the model failed: a server error, not a dead handler
            return error(500, f"model error: {type(exc).__name__}: {exc}", "server_error")
        if kind == "ignore_schema":
            text = fault.content if fault.content is not None else IGNORED_SCHEMA_REPLY  # type: ignore[union-attr]
            response["choices"][0]["message"] = {"role": "assistant", "content": text, "refusal": None}
            response["choices"][0]["finish_reason"] = "stop"
        elif kind == "fenced" and response["choices"][0]["message"].get("content"):
            message = response["choices"][0]["message"]
            message["content"] = (
                f"Here is my answer:\n```json\n{message['content']}\n```\nLet me know if you need more."
            )
        elif kind == "empty_choices":
            response["choices"] = []
        entry["usage"] = response.get("usage")
        entry["status"] = 200
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            payload, content_type, headers = (
                _stream_events(response, include_usage),
                "text/event-stream",
                {"Cache-Control": "no-cache"},
            )
        else:
            payload, content_type, headers = json.dumps(response).encode(), "application/json", {}
        if kind == "truncated":
            payload = payload[: max(1, len(payload) // 2)]
        return 200, payload, content_type, headers


def serve(port: int = 0, **options: Any) -> tuple[ChatCompletionsServer, str]:
    """Start a server in a background thread; returns it and its base URL. Stop it with ``close()``."""
    server = ChatCompletionsServer(port, **options)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=f"openai-server-{server.port}", daemon=True
    )
    server._thread = thread
    thread.start()
    return server, server.url


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ariadnegraph.testing.openai_server",
        description="OpenAI-compatible chat completions answered by the offline scripted model.",
    )
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--api-key", default=None, help="require this bearer key (default: accept any)")
    parser.add_argument(
        "--faults", default=None, help='JSON list of fault specs, e.g. \'[{"after": 5, "kind": "429", "times": 2}]\''
    )
    parser.add_argument("--verbose", action="store_true", help="log every request on stderr")
    args = parser.parse_args(argv)
    try:
        faults = FaultPlan(json.loads(args.faults)) if args.faults else None
        server = ChatCompletionsServer(args.port, faults=faults, api_key=args.api_key, verbose=args.verbose)
    except (ValueError, TypeError, OSError) as exc:
        print(f"openai_server: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(f"serving OpenAI chat completions on {server.url}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
