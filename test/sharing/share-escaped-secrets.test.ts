/**
 * Secrets a tool input carries as JSON text: claude writes a PuTTY key, a Docker config.json and a
 * GCP service account key with the Write tool. In the raw stream events the input is JSON inside a
 * JSON string (a key's line ends are `\n` escapes, a config's quotes `\"`); the export and the
 * HTML export must mask them there as claude's transcript does.
 */
import { randomBytes, randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { unpack } from "./share-support.js";
import { readStreamOf } from "../support/stream.js";

const hex = (n: number) => randomBytes(n).toString("hex");
const PRIVATE = randomBytes(36).toString("base64");
const MAC = hex(32);
const PPK = `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n${randomBytes(48).toString("base64")}\n${randomBytes(3).toString("base64")}\nPrivate-Lines: 1\n${PRIVATE}\nPrivate-MAC: ${MAC}\n`;
const AUTH = Buffer.from(`robot:${randomBytes(12).toString("base64url")}${randomInt(10)}`).toString("base64");
const DOCKER = JSON.stringify({ auths: { "https://index.docker.io/v1/": { auth: AUTH } } }, null, 2);
const KEY_ID = hex(20);
const GCP = JSON.stringify(
  {
    type: "service_account",
    project_id: "acme-1",
    private_key_id: KEY_ID,
    client_email: "ci@acme-1.iam.gserviceaccount.com",
  },
  null,
  2,
);
const SECRETS = [PRIVATE, MAC, AUTH, KEY_ID];

/** Whether any secret is in `out`, as written or JSON-escaped (once or twice). */
function leaks(out: string): string[] {
  return SECRETS.filter((s) => out.includes(s) || out.includes(JSON.stringify(JSON.stringify(s)).slice(1, -1)));
}

describe("secrets inside a tool input's JSON text", () => {
  let rec: Recorded;
  let a: string;
  beforeAll(async () => {
    a = await gitdir({ "README.md": "# app\n" });
    // Outside the repository: not code, so nothing is exported as it is.
    const home = tempDir("nudge-keys-");
    rec = await recordSession(
      a,
      [
        { tool: "Write", input: { file_path: path.join(home, "deploy.ppk"), content: PPK } },
        { tool: "Write", input: { file_path: path.join(home, "config.json"), content: DOCKER } },
        { tool: "Write", input: { file_path: path.join(home, "sa.json"), content: GCP } },
        { text: "Wrote the key files." },
      ],
      ["write the deploy keys"],
    );
  }, 60_000);
  afterAll(() => rec?.api.close());

  it("the recording holds them in the raw stream events (the test's premise)", () => {
    const conversation = readStreamOf(rec.dir).toString("utf8");
    expect(conversation).toContain('"stream_event"');
    expect(leaks(conversation).length).toBeGreaterThan(0);
  });

  it("the export masks them in conversation.jsonl and every other file", async () => {
    const out = await runNudge(["session", "export", rec.id, "-o", "keys.tar.gz"], { cwd: a, env: rec.env });
    expect(out.exitCode, out.stderr).toBe(0);
    const files = await unpack(path.join(a, "keys.tar.gz"));
    const conversation = files.get("session/conversation.jsonl")!.toString();
    expect(leaks(conversation)).toEqual([]);
    for (const line of conversation.trim().split("\n")) JSON.parse(line);
    expect(conversation).toContain("[REDACTED:putty-private-key]");
    expect(conversation).toContain("[REDACTED:docker-registry-auth]");
    expect(conversation).toContain("[REDACTED:gcp-private-key-id]");
    for (const [name, bytes] of files) expect(leaks(bytes.toString()), name).toEqual([]);
  });

  it("the HTML export masks them", async () => {
    const html = await runNudge(["session", "export", rec.id, "--html", "-o", path.join(a, "keys.html")], {
      cwd: a,
      env: rec.env,
    });
    expect(html.exitCode, html.stderr).toBe(0);
    expect(leaks(readFileSync(path.join(a, "keys.html"), "utf8"))).toEqual([]);
  });
});
