// The official TypeScript MCP SDK (@modelcontextprotocol/sdk, pinned by
// tests/conformance/package-lock.json) as a client of `xcsh mcp --http`,
// the way Claude Code and most Node clients use it: the tool list is read
// once and never again, a preview is made, and the client leaves with
// `close()`, which aborts its event stream and sends no DELETE.
//
// Usage: node mcp_ts_client.mjs NODE_MODULES URL TOKEN_FILE
// Prints what it saw as one JSON line.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modules, url, tokenFile] = process.argv.slice(2);
const sdk = (path) =>
  import(pathToFileURL(`${modules}/@modelcontextprotocol/sdk/dist/esm/${path}`).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const token = readFileSync(tokenFile, "utf8").trim();
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "xcsh-test-ts", version: "0.0.0" });
let listChanged = 0;
await client.connect(transport);
client.fallbackNotificationHandler = async (notification) => {
  if (notification.method === "notifications/tools/list_changed") listChanged += 1;
};
const texts = (result) => ({
  isError: result.isError === true,
  texts: result.content.filter((block) => block.type === "text").map((block) => block.text),
});
const tools = (await client.listTools()).tools.map((tool) => tool.name);
const nothingPending = texts(
  await client.callTool({ name: "resolve", arguments: { action: "apply", reason: "nothing yet" } }),
);
const preview = texts(
  await client.callTool({
    name: "batch_rename_preview",
    arguments: { files: ["a.txt"], rule: { kind: "prefix", prefix: "old-" } },
  }),
);
const sessionId = transport.sessionId;
await client.close();
console.log(JSON.stringify({ tools, nothingPending, preview, listChanged, sessionId }));
