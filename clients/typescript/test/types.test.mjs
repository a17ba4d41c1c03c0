// The generated types follow the service's OpenAPI document: a change to it without
// `npm run generate` fails here.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

test("src/schema.d.ts is what openapi-typescript makes of openapi/openapi.json now", () => {
  const done = spawnSync("npm", ["run", "--silent", "check-types"], {
    cwd: new URL("..", import.meta.url),
    encoding: "utf8",
  });
  assert.equal(done.status, 0, `${done.stdout}${done.stderr}\nRun \`npm run generate\`.`);
});
