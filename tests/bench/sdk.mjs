// sdk.mjs - the official TypeScript SDK's client on the same server, for
// tests/bench/run.sh (a benchmark, asserts nothing).
//
//   node sdk.mjs seq N REQ CMD [ARG...]    N sequential callTool: prints
//                                          "MEDIAN_US P10_US P90_US"
//   node sdk.mjs pipe N K REQ CMD [ARG...] N callTool with K in flight at
//                                          once: prints "US_PER_CALL CALLS_PER_SEC"
//
// CMD may be an http:// URL instead: the SDK's StreamableHTTPClientTransport
// to that server. REQ is {"name": ..., "arguments": {...}}. A warm-up of min(N/10, 50) calls
// comes first and is not counted. Resolves @modelcontextprotocol/sdk from
// the node_modules above this file (the repository's package.json).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

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
