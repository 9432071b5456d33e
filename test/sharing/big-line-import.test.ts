/**
 * A session holding a Write longer than the 32 MiB line an import reads by default: nudge exports
 * it, so it must import it. Refused by default with the flag that lets it through; `--max-size`
 * raises the line limit with the size limits (it raised only the sizes: the line was still
 * refused), and the imported session holds the whole file.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { configDir, origin } from "./share-support.js";

const LINE = "0123456789 the quick brown fox jumps over the lazy dog, a line of a big generated file\n";
const content = LINE.repeat(Math.ceil((34 << 20) / LINE.length)) + "the last line\n";

let rec: Recorded;
let a: string;
let clone: (name: string) => Promise<string>;
beforeAll(async () => {
  ({ clone } = await origin({ "README.md": "# app\n" }));
  a = await clone("ana");
  rec = await recordSession(
    a,
    [{ tool: "Write", input: { file_path: path.join(a, "big.txt"), content } }, { text: "Wrote it." }],
    ["write the big file"],
  );
}, 240_000);
afterAll(() => rec?.api.close());

describe("importing a session with a line longer than 32 MiB", () => {
  it("is refused with the flag that takes it, then imported whole with --max-size", async () => {
    const file = path.join(tempDir(), "big.tar.gz");
    const exported = await runNudge(["session", "export", rec.id, "-o", file], { cwd: a, env: rec.env });
    expect(exported.exitCode, exported.stderr).toBe(0);

    const b = await clone("bob");
    const env = { CLAUDE_CONFIG_DIR: configDir() };
    const refused = await runNudge(["session", "import", file], { cwd: b, env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("hint: if you trust the file, import it with --max-size ");

    const imported = await runNudge(["session", "import", file, "--max-size", "256MiB"], { cwd: b, env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const listed = JSON.parse((await runNudge(["session", "list", "--json"], { cwd: b, env })).stdout);
    const id = listed[0].id as string;
    const rewound = await runNudge(["session", "rewind", id, "1", "--yes"], { cwd: b, env });
    expect(rewound.exitCode, rewound.stderr).toBe(0);
    expect((await git(b, "hash-object", "big.txt")).trim()).toBe((await git(a, "hash-object", "big.txt")).trim());
  }, 240_000);
});
