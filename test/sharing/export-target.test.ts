/** Where an export goes and what an import accepts: a missing folder, a file already there, a gunzipped `.tar`. Real claude, scripted API. */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { configDir, origin } from "./share-support.js";

let rec: Recorded;
let a: string;
let clone: (name: string) => Promise<string>;
beforeAll(async () => {
  ({ clone } = await origin({ "README.md": "# app\n" }));
  a = await clone("ana");
  rec = await recordSession(a, [{ text: "Noted." }], ["remember this"]);
}, 90_000);
afterAll(() => rec?.api.close());

describe("export -o", () => {
  it("a folder that does not exist is named, with nothing written (before: an ENOENT naming an internal temp file)", async () => {
    const missing = path.join(tempDir(), "missing", "dir");
    const run = await runNudge(["session", "export", rec.id, "-o", `${missing}/`], { cwd: a, env: rec.env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      `error: the folder ${missing} does not exist; nothing was written\nhint: make it first (mkdir -p ${missing}), or give -o a folder that exists`,
    );
  });

  it("a file already there is refused without a terminal unless --force (before: replaced silently)", async () => {
    const out = path.join(tempDir(), "s.tar.gz");
    writeFileSync(out, "someone else's file\n");
    const refused = await runNudge(["session", "export", rec.id, "-o", out], { cwd: a, env: rec.env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe(
      `error: ${out} already exists; nothing was written\nhint: pass --force to replace it, or give -o another name`,
    );
    expect(readFileSync(out, "utf8")).toBe("someone else's file\n");
    const forced = await runNudge(["session", "export", rec.id, "-o", out, "--force"], { cwd: a, env: rec.env });
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(readFileSync(out).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });
});

describe("import", () => {
  it("takes a gunzipped export (.tar, as browsers leave them) as it takes the .tar.gz", async () => {
    const gz = path.join(tempDir(), "s.tar.gz");
    expect((await runNudge(["session", "export", rec.id, "-o", gz], { cwd: a, env: rec.env })).exitCode).toBe(0);
    const tar = path.join(tempDir(), `nudge-${rec.id}.tar`);
    writeFileSync(tar, gunzipSync(readFileSync(gz)));
    const b = await clone("bob");
    const run = await runNudge(["session", "import", tar], { cwd: b, env: { CLAUDE_CONFIG_DIR: configDir() } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`imported session ${rec.id} from nudge-${rec.id}.tar (1 turn)`);
  });
});
