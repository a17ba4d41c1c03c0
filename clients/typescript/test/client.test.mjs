// The TypeScript client against the real service, over real HTTP.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { ContextEngine, ContextEngineError } from "../dist/index.js";
import { startService } from "./service.mjs";

let service;
let engine;

before(async () => {
  service = await startService();
  engine = new ContextEngine({ baseUrl: service.url, apiKey: service.key });
});

after(async () => {
  await service?.stop();
});

test("the common loop: write, append, build, feedback, search", async () => {
  await engine.putAgent("newton", { identity: { name: "Newton", traits: ["cautious"] } });
  const written = await engine.remember("newton", {
    kind: "fact",
    content: "Deploys to production happen on Tuesdays at 09:00 UTC.",
  });
  assert.equal(written.kind, "fact");
  await engine.append("newton", "chat-1", [{ role: "user", content: "When do we deploy?" }]);
  const built = await engine.build("newton", "When do we deploy to production?", {
    session_id: "chat-1",
    window: { total: 8000 },
  });
  assert.match(built.context, /^## Identity\nNewton\. Cautious\./);
  assert.match(built.context, /Tuesdays at 09:00 UTC/);
  assert.deepEqual(built.messages?.map((m) => m.content), ["When do we deploy?"]);
  assert.ok(built.totals.used <= 8000);
  const rated = await engine.feedback(built.context_id, { used_memory_ids: [written.id] });
  assert.deepEqual(rated.referenced, [written.id]);
  const found = await engine.search("newton", "deploy production", { limit: 3 });
  assert.equal(found.memories[0]?.memory_id, written.id);
});

test("every route through the typed api", async () => {
  const { data, response } = await engine.api.GET("/agents/{agent_id}", {
    params: { path: { agent_id: "newton" } },
  });
  assert.equal(response.status, 200);
  assert.equal(data?.agent_id, "newton");
});

test("an error is a ContextEngineError with the fields at fault", async () => {
  await assert.rejects(engine.build("newton", ""), (error) => {
    assert.ok(error instanceof ContextEngineError);
    assert.equal(error.status, 422);
    assert.deepEqual(error.fields, [["body", "input"]]);
    return true;
  });
  const stranger = new ContextEngine({ baseUrl: service.url, apiKey: "ce_00000000_nope" });
  await assert.rejects(stranger.build("newton", "Hello?"), (error) => error.status === 401);
  await assert.rejects(engine.build("nobody", "Hello?"), (error) => {
    assert.equal(error.status, 404);
    assert.match(error.problem.detail, /does not exist/);
    return true;
  });
});
