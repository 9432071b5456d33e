/**
 * Real git servers on loopback, started by a test: `git daemon` (receive-pack enabled) and the
 * smart-HTTP protocol through `git http-backend` behind a small node HTTP server (the CGI
 * contract: method, path, query, content type and encoding in, a `Status:` header and the body
 * out). Both serve every repository under `base`; each is stopped when the file's tests end.
 */
import { execa, type ResultPromise } from "execa";
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterAll } from "vitest";

export interface GitServer {
  /** The URL of the repository `name` (a folder under base). */
  url: (name: string) => string;
  close: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

async function untilListening(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => (socket.end(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

export async function startGitDaemon(base: string): Promise<GitServer> {
  const port = await freePort();
  const daemon: ResultPromise = execa(
    "git",
    [
      "daemon",
      "--reuseaddr",
      "--listen=127.0.0.1",
      `--port=${port}`,
      "--enable=receive-pack",
      "--export-all",
      `--base-path=${base}`,
      base,
    ],
    { reject: false, stdio: "ignore" },
  );
  await untilListening(port);
  const close = async () => {
    daemon.kill("SIGTERM");
    await daemon;
  };
  afterAll(close);
  return { url: (name) => `git://127.0.0.1:${port}/${name}`, close };
}

export async function startHttpBackend(base: string): Promise<GitServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const backend = spawn("git", ["http-backend"], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: base,
        GIT_HTTP_EXPORT_ALL: "1",
        // receive-pack is served to an authenticated user only: the test's server says who.
        REMOTE_USER: "test",
        REMOTE_ADDR: "127.0.0.1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(backend.stdin);
    let head = Buffer.alloc(0);
    let inBody = false;
    backend.stdout.on("data", (chunk: Buffer) => {
      if (inBody) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      inBody = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    backend.on("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  afterAll(close);
  return { url: (name) => `http://127.0.0.1:${port}/${path.posix.join(name)}`, close };
}
