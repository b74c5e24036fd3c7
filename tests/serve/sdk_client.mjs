// sdk_client.mjs - the official TypeScript SDK's client driving
// `mcpfs serve` for tests/mount/test_serve.py: an MCP client that no one
// here wrote, on the other side of the second front door (spec 14).
//
//   node sdk_client.mjs MCPFS MOUNTPOINT [THREAD]
//   node sdk_client.mjs --http URL TOKEN       (the mount's --serve)
//
// Reads one JSON command per line on stdin and prints one JSON line per
// command on stdout ({"ok": ...} or {"error": MESSAGE}):
//   {"op": "tools"}                     the tool names
//   {"op": "toolsfull"}                 the tools as listed
//   {"op": "call", "name", "arguments", "progress": true,
//    "abortMs": N}                      callTool (progress: collect the
//                                       notifications; abortMs: cancel
//                                       after N ms through an AbortSignal,
//                                       with abortReason as its reason)
//   {"op": "start", "key", "name", "arguments"}  callTool in the
//                                       background: {"done": KEY, ...}
//                                       when it ends
//   {"op": "abort", "key", "reason"}    abort that call, with that reason
//   {"op": "prompts"} / {"op": "prompt", "name", "arguments"}
//   {"op": "resources"} / {"op": "read", "uri"}
//   {"op": "close"}                     ends the session, then exits
// SDK_SERVE_ARGS in the environment (a JSON array) adds arguments to
// `mcpfs serve` (--servers A,B, --tools search). A connection that fails
// prints {"error": MESSAGE} and exits 1.
// With SDK_ANSWER set in the environment the client declares elicitation
// and sampling and answers every such request of the server with that JSON
// (SDK_ANSWER=error: with a JSON-RPC error; SDK_ANSWER=slow: never,
// printing {"cancelled": ID} when the server withdraws it); each request
// it got is printed first as {"asked": {method, params}}.
// Resolves @modelcontextprotocol/sdk from the repository's node_modules.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mcpfs, mount, thread] = process.argv.slice(2);
const args = ["serve", ...(thread ? ["--thread", thread] : []),
  ...JSON.parse(process.env.SDK_SERVE_ARGS || "[]"), mount];
const transport = mcpfs === "--http"
  ? new StreamableHTTPClientTransport(new URL(mount), { requestInit: {
      headers: { Authorization: "Bearer " + thread } } })
  : new StdioClientTransport({ command: mcpfs, args, stderr: "inherit" });
const answer = process.env.SDK_ANSWER;
const client = new Client({ name: "mcpfs-test-sdk", version: "0" },
  answer ? { capabilities: { elicitation: {}, sampling: {} } } : {});
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
if (answer) {
  const reply = async (req, extra) => {
    out({ asked: { method: req.method, params: req.params } });
    if (answer === "error") throw new Error("this client says no");
    if (answer === "slow") // answers nothing; says when it is withdrawn
      return await new Promise((res, rej) =>
        extra.signal.addEventListener("abort", () => {
          out({ cancelled: extra.requestId });
          rej(new Error("withdrawn"));
        }));
    return JSON.parse(answer);
  };
  client.setRequestHandler(ElicitRequestSchema, reply);
  client.setRequestHandler(CreateMessageRequestSchema, reply);
}
try {
  await client.connect(transport);
} catch (e) {
  out({ error: String(e && e.message ? e.message : e) });
  process.exit(1);
}
out({ ok: "connected", server: client.getServerVersion(),
      instructions: client.getInstructions() });

const bg = {};
const run = async (c) => {
  switch (c.op) {
    case "tools":
      return (await client.listTools()).tools.map((t) => t.name);
    case "toolsfull":
      return (await client.listTools()).tools;
    case "call": {
      const progress = [];
      const ac = new AbortController();
      if (c.abortMs) setTimeout(() => ac.abort(c.abortReason), c.abortMs);
      const r = await client.callTool(
        { name: c.name, arguments: c.arguments || {} }, undefined,
        { signal: ac.signal, timeout: 120000,
          onprogress: c.progress ? (p) => progress.push(p) : undefined });
      return { result: r, progress };
    }
    case "start": { // a call in the background, cancelled by "abort"
      const ac = new AbortController();
      bg[c.key] = ac;
      client.callTool({ name: c.name, arguments: c.arguments || {} },
                      undefined, { signal: ac.signal, timeout: 120000 })
        .then((r) => out({ done: c.key, ok: r }),
              (e) => out({ done: c.key, error: String(e.message || e) }));
      return "started";
    }
    case "abort":
      bg[c.key].abort(c.reason);
      return "aborted";
    case "prompts":
      return (await client.listPrompts()).prompts.map((p) => p.name);
    case "prompt":
      return await client.getPrompt({ name: c.name,
                                      arguments: c.arguments || {} });
    case "resources":
      return (await client.listResources()).resources.map((r) => r.uri);
    case "read":
      return await client.readResource({ uri: c.uri });
    default:
      throw new Error("unknown op " + c.op);
  }
};

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const c = JSON.parse(line);
  if (c.op === "close") break;
  try {
    out({ ok: await run(c) });
  } catch (e) {
    out({ error: String(e && e.message ? e.message : e) });
  }
}
if (mcpfs === "--http") await transport.terminateSession();
await client.close();
out({ ok: "closed" });
process.exit(0); // stdin is still open: the test closes it after
