// Drives `cudb mcp` with the official TypeScript SDK client: list the
// tools, call each one, and validate every result against the tool's
// output schema (the SDK validates too, and throws on an invalid result).
// Run by TestMCPTypeScriptSDK (cmd/cudb/mcp_ts_test.go):
//   node client.mjs CUDB_BINARY CALLS.json
// prints one JSON line per call and exits 1 on any client error.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import Ajv from "ajv";

const [bin, callsFile] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsFile, "utf8"));

const transport = new StdioClientTransport({
  command: bin,
  args: ["mcp"],
  env: { ...process.env, CUDB_NO_DATA_AGE_NOTICE: "1" },
  stderr: "inherit",
});
const client = new Client({ name: "cudb-ts-sdk-test", version: "1.0.0" });
await client.connect(transport);

let failed = false;
const ajv = new Ajv({ strict: false, allErrors: true });
const { tools } = await client.listTools();
const validators = {};
for (const tool of tools) {
  const line = { list: tool.name, outputSchema: Boolean(tool.outputSchema) };
  if (!tool.outputSchema || tool.outputSchema.type !== "object") {
    line.error = "no object output schema";
    failed = true;
  } else {
    validators[tool.name] = ajv.compile(tool.outputSchema);
  }
  console.log(JSON.stringify(line));
}

for (const call of calls) {
  const line = { tool: call.tool };
  try {
    const res = await client.callTool({ name: call.tool, arguments: call.arguments });
    line.isError = Boolean(res.isError);
    if (res.isError) {
      line.text = res.content?.[0]?.text ?? "";
    } else {
      const sc = res.structuredContent;
      line.object = sc !== null && typeof sc === "object" && !Array.isArray(sc);
      const validate = validators[call.tool];
      line.valid = Boolean(validate && validate(sc));
      if (!line.valid) line.schemaErrors = validate?.errors;
      line.keys = line.object ? Object.keys(sc).sort() : [];
      // The text block carries the same JSON for text-only clients.
      line.textMatches = JSON.stringify(JSON.parse(res.content?.[0]?.text ?? "null")) === JSON.stringify(sc);
      if (!line.object || !line.valid || !line.textMatches) failed = true;
    }
  } catch (err) {
    line.clientError = String(err?.message ?? err);
    failed = true;
  }
  console.log(JSON.stringify(line));
}
await client.close();
process.exit(failed ? 1 : 0);
