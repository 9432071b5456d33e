/**
 * `claude loop --sandbox` with an https Messages API, as real users have: inside the sandbox's own
 * network claude reaches it through the sandbox's proxy (CONNECT), end to end encrypted, the
 * certificate checked. Loopback only: a TLS front (a certificate made here, trusted through
 * NODE_EXTRA_CA_CERTS, shown inside with --sandbox-read) before the scripted API.
 */
import { execa } from "execa";
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import tls from "node:tls";
import { describe, expect, it, onTestFinished } from "vitest";
import { claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { LOOP_FLAGS } from "../support/loop.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";

/** A TLS server on loopback that passes every connection to `port`; the certificate's file. */
async function tlsFront(
  port: number,
): Promise<{ url: string; cert: string; certDir: string; connections: () => number }> {
  const certDir = tempDir("nudge-cert-");
  const [key, cert] = [`${certDir}/key.pem`, `${certDir}/cert.pem`];
  await execa("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  let connections = 0;
  const server = tls.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (s) => {
    connections += 1;
    const api = net.connect(port, "127.0.0.1");
    s.on("error", () => api.destroy());
    api.on("error", () => s.destroy());
    s.pipe(api).pipe(s);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cert,
    certDir,
    connections: () => connections,
  };
}

describe("claude loop --sandbox and an https API", () => {
  it("reaches the API through the sandbox's proxy, its certificate checked", async () => {
    const repo = await gitdir();
    const api = await startScriptedApi([
      { tool: "Bash", input: { command: "echo done > out.txt", description: "write" } },
      { text: "<promise>COMPLETE</promise>" },
    ]);
    onTestFinished(() => api.close());
    const front = await tlsFront(Number(new URL(api.url).port));
    const env = {
      ...claudeEnv(api, path.join(tempDir("nudge-cfg-"), "claude")),
      ANTHROPIC_BASE_URL: front.url,
      NODE_EXTRA_CA_CERTS: front.cert,
    };
    const args = [
      "claude",
      "loop",
      ...LOOP_FLAGS,
      "go",
      "--until-promise",
      "COMPLETE",
      "--sandbox",
      "--sandbox-read",
      front.certDir,
    ];
    const run = await runNudge(args, { cwd: repo, env, timeout: 180_000 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(path.join(repo, "out.txt"), "utf8")).toBe("done\n");
    expect(front.connections()).toBeGreaterThan(0);
    expect(api.mainLoopRequests()).toHaveLength(2);
  });
});
