// sdk.mjs - the official TypeScript SDK's client on the same server, for
// tests/bench/run.sh (a benchmark, asserts nothing).
//
//   node sdk.mjs seq N REQ CMD [ARG...]    N sequential callTool: prints
//                                          "MEDIAN_US P10_US P90_US"
//   node sdk.mjs pipe N K REQ CMD [ARG...] N callTool with K in flight at
//                                          once: prints "US_PER_CALL CALLS_PER_SEC"
//
//   node sdk.mjs hold SPEC                 one Client per entry of SPEC, a JSON
//                                          array of {"command", "args", "env",
//                                          "calls": [REQ...]}: connects, makes
//                                          the calls, prints "ready", then holds
//                                          every connection until SIGTERM
//   node sdk.mjs list CMD [ARG...]         no SDK: initialize, then tools/list
//                                          (every page) as raw newline JSON-RPC:
//                                          prints "BYTES TOOLS SERVER=N..." (the
//                                          bytes of the tools/list replies as
//                                          sent, without newlines; the tools;
//                                          per SERVER__ prefix, its tools)
//
// CMD may be an http:// URL instead: the SDK's StreamableHTTPClientTransport
// to that server. REQ is {"name": ..., "arguments": {...}}. A warm-up of min(N/10, 50) calls
// comes first and is not counted. Resolves @modelcontextprotocol/sdk from
// the node_modules above this file (the repository's package.json).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

if (process.argv[2] === "hold") await hold(JSON.parse(process.argv[3]));
if (process.argv[2] === "list") await list(process.argv.slice(3));

async function hold(spec) {
  const clients = [];
  for (const s of spec) {
    const transport = new StdioClientTransport({
      command: s.command, args: s.args || [], stderr: "ignore",
      env: { ...process.env, ...(s.env || {}) } });
    const client = new Client({ name: "mcpfs-bench-hold", version: "0" });
    await client.connect(transport);
    clients.push(client);
    for (const c of s.calls || []) {
      const r = await client.callTool(c, undefined, { timeout: 120000 });
      if (r.isError) throw new Error("tool error: " + JSON.stringify(r));
    }
  }
  console.log("ready");
  await new Promise((resolve) => process.on("SIGTERM", resolve));
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  process.exit(0);
}

async function list([command, ...args]) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => { err += d; });
  child.stdin.on("error", () => {}); // EPIPE when it exits: said below
  const closed = new Promise((resolve) => child.on("close", resolve));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let id = 0;
  const rpc = async (method, params) => {
    const me = ++id;
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: me, method, params }) + "\n");
    for (;;) {
      const { value, done } = await lines.next();
      if (done) {
        const code = await closed;
        console.error(`${command}: exit ${code}: ${err.trim().split("\n")[0]}`);
        process.exit(1);
      }
      const m = JSON.parse(value);
      if (m.id !== me || m.method) continue;
      if (m.error) throw new Error(`${method}: ${JSON.stringify(m.error)}`);
      return [m.result, Buffer.byteLength(value)];
    }
  };
  await rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {},
                           clientInfo: { name: "mcpfs-bench-list", version: "0" } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  let bytes = 0, cursor;
  const tools = [];
  do {
    const [r, n] = await rpc("tools/list", cursor ? { cursor } : {});
    bytes += n;
    tools.push(...r.tools);
    cursor = r.nextCursor;
  } while (cursor);
  const per = {};
  for (const t of tools) {
    const i = t.name.indexOf("__");
    const s = i > 0 ? t.name.slice(0, i) : "-";
    per[s] = (per[s] || 0) + 1;
  }
  console.log(`${bytes} ${tools.length} ` +
              Object.entries(per).map(([k, v]) => `${k}=${v}`).join(" "));
  child.kill("SIGTERM");
  process.exit(0);
}

const [mode, ...rest] = process.argv.slice(2);
const n = Number(rest.shift());
const k = mode === "pipe" ? Number(rest.shift()) : 1;
const req = JSON.parse(rest.shift());
const [command, ...args] = rest;

// MCP_BEARER: a bearer token for an HTTP server (mcpfs's --serve)
const headers = process.env.MCP_BEARER
  ? { Authorization: "Bearer " + process.env.MCP_BEARER } : {};
const transport = command.startsWith("http://")
  ? new StreamableHTTPClientTransport(new URL(command),
                                      { requestInit: { headers } })
  : new StdioClientTransport({ command, args, stderr: "ignore" });
const client = new Client({ name: "mcpfs-bench-sdk", version: "0" });
await client.connect(transport);

const call = async () => {
  const r = await client.callTool(req);
  if (r.isError) throw new Error("tool error: " + JSON.stringify(r));
  return r;
};
const warm = Math.min(Math.floor(n / 10), 50);
for (let i = 0; i < warm; i++) await call();

if (mode === "seq") {
  const t = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await call();
    t.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  t.sort((a, b) => a - b);
  const f = (x) => x.toFixed(2);
  console.log(`${f(t[n >> 1])} ${f(t[Math.floor(n / 10)])} ${f(t[Math.floor(n * 9 / 10)])}`);
} else {
  let left = n;
  const worker = async () => {
    while (left > 0) {
      left--;
      await call();
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: k }, worker));
  const us = Number(process.hrtime.bigint() - t0) / 1e3;
  console.log(`${(us / n).toFixed(2)} ${(n / (us / 1e6)).toFixed(0)}`);
}
await client.close();
process.exit(0);
