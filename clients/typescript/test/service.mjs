// A real `python -m app serve` on a fresh data directory and a free port, for the tests.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const START_SECONDS = 180;

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function ready(url, process, log) {
  const until = Date.now() + START_SECONDS * 1000;
  while (Date.now() < until) {
    if (process.exitCode !== null) {
      throw new Error(`the service exited at start:\n${log.join("")}`);
    }
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`the service was not ready in ${START_SECONDS} s:\n${log.join("")}`);
}

/** Start the service (CE_PYTHON, else python3); returns its URL, key and stop(). */
export async function startService() {
  const dataDir = await mkdtemp(join(tmpdir(), "ce-ts-"));
  const port = await freePort();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("CE_")));
  Object.assign(env, {
    CE_DATA_DIR: dataDir,
    CE_HOST: "127.0.0.1",
    CE_PORT: String(port),
    CE_API__WORKERS: "1",
    CE_LOG_LEVEL: "warning",
  });
  const python = process.env.CE_PYTHON ?? "python3";
  const child = spawn(python, ["-m", "app", "serve"], { cwd: REPO, env });
  const log = [];
  child.stdout.on("data", (chunk) => log.push(chunk.toString()));
  child.stderr.on("data", (chunk) => log.push(chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await ready(url, child, log);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  const key = (await readFile(join(dataDir, "api-key"), "utf8")).trim();
  const stop = async () => {
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  return { url, key, stop, log };
}
