/**
 * Issue 22, leak 1: private keys Claude writes into the code (an RSA key, an OpenSSH key, a
 * PKCS#8 .pem, a GCP service-account file) refuse the export, found in the files' content, not
 * the patch text (whose `+` at each line start hid a key's body from secretlint's patterns, and which
 * shows a key changed in its middle without its markers). A secret the
 * repository already held before the session, on its remote, is not the export's to refuse (one
 * on no remote travels in the carried history: share-carried-secrets.test.ts).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { loadCorpus } from "../support/secret-corpus.js";
import { origin } from "./share-support.js";

const corpus = loadCorpus().secrets;
const key = (kind: string) => corpus.find((s) => s.kind === kind)!.text;

describe("private keys in the code", () => {
  let rec: Recorded;
  let a: string;
  beforeAll(async () => {
    // The repository (and its remote) already holds a key: the session only appends to the file around it.
    a = await (await origin({ "README.md": "# app\n", "legacy/old.pem": key("private-key-dsa") + "\n" })).clone("ana");
    const write = (file: string, content: string) => ({
      tool: "Write",
      input: { file_path: path.join(a, file), content },
    });
    rec = await recordSession(
      a,
      [
        write("deploy/id_rsa", key("private-key-rsa") + "\n"),
        write("deploy/id_ed25519", key("private-key-openssh") + "\n"),
        write("certs/server.pem", key("private-key-pkcs8") + "\n"),
        write("gcp/service-account.json", key("gcp-service-account") + "\n"),
        { text: "Wrote the deploy keys." },
        write("legacy/old.pem", key("private-key-dsa") + "\n# rotated yearly\n"),
        // One line in the middle of a key changes: the patch shows neither of its markers, the file does.
        {
          tool: "Bash",
          input: { command: "sed -i '12s/^./Q/' deploy/id_rsa", description: "change one line of the key" },
        },
        { text: "Added a note and changed the key." },
      ],
      ["add the deploy keys", "add a note to the legacy key, change a line of the deploy key"],
    );
  }, 90_000);
  afterAll(() => rec?.api.close());

  it("refuses the export, naming every file that holds one; a key the repository held before is not counted", async () => {
    const out = await runNudge(["session", "export", rec.id], { cwd: a, env: rec.env });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toContain(
      "error: a secret (private-key) is in the code changes: certs/server.pem in turn 1 (and 5 more: deploy/id_ed25519 in turn 1, deploy/id_rsa in turn 1, gcp/service-account.json in turn 1, …)",
    );
    const allowed = await runNudge(
      ["session", "export", rec.id, "--allow-secrets-in-code", "--json", "-o", "code.tar.gz"],
      { cwd: a, env: rec.env },
    );
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    const found = (JSON.parse(allowed.stdout).codeSecrets as Array<{ kind: string; path: string; turn: number }>)
      .map((s) => `${s.turn} ${s.path} ${s.kind}`)
      .sort();
    // Turn 2's note went into a file whose key the repository already held: not counted. Its change to
    // one line of deploy/id_rsa is a new key, though the patch shows neither marker.
    expect(found).toEqual([
      "1 certs/server.pem private-key",
      "1 deploy/id_ed25519 private-key",
      "1 deploy/id_rsa private-key",
      "1 gcp/service-account.json gcp-private-key-id",
      "1 gcp/service-account.json private-key",
      "2 deploy/id_rsa private-key",
    ]);
  });
});
