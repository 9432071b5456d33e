/**
 * One real 3-turn session to read from: turn 1 writes notes.txt, turn 2 edits it, turn 3 writes a
 * binary file and renames old-name.txt with Bash; draft.md is uncommitted work from before (turn 0).
 */
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { gitdir, writeFiles } from "./gitdir.js";
import { recordSession, type Recorded } from "./record.js";
import type { ScriptedApi } from "./scripted-api.js";

export async function recordThreeTurns(): Promise<Recorded & { repo: string }> {
  const repo = await gitdir({ "README.md": "# test\n", "old-name.txt": "to be renamed\n" });
  writeFiles(repo, { "draft.md": "uncommitted at the start\n" });
  const recorded = await recordSession(
    repo,
    [
      { tool: "Write", input: { file_path: path.join(repo, "notes.txt"), content: "alpha\nbeta\ngamma\n" } },
      { text: "Wrote notes.txt." },
      { tool: "Read", input: { file_path: path.join(repo, "notes.txt") } },
      { tool: "Edit", input: { file_path: path.join(repo, "notes.txt"), old_string: "beta", new_string: "BETA" } },
      { text: "Edited notes.txt." },
      {
        tool: "Bash",
        input: {
          command: "printf '\\000\\001\\002\\377binary' > blob.bin && mv old-name.txt renamed.txt",
          description: "shuffle",
        },
      },
      { text: "Shuffled." },
    ],
    ["write notes", "edit notes", "shuffle the files"],
  );
  return { ...recorded, repo };
}

/** One recording shared by a whole test file: made before its tests, its API server closed after. */
export function recordThreeTurnsForFile(use: (recorded: Recorded & { repo: string }) => void): void {
  let api: ScriptedApi | undefined;
  beforeAll(async () => {
    const recorded = await recordThreeTurns();
    api = recorded.api;
    use(recorded);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });
}
