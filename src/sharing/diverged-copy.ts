/**
 * claude's copy of an imported conversation that went another way here. Two clones continued one
 * session apart (B's turn 5, Ana's turn 5'): claude's file here and the incoming one share their
 * start, then differ. Both are kept: the incoming transcript gets a fresh claude session id (its
 * file, its side folder, and that id inside them), so nothing of claude's is set aside or
 * overwritten, and each session resumes its own version. Ids are random uuids of one length, so
 * the byte offsets the turns recorded stay true.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { Placement } from "./import-stage.js";

/** claude's main transcripts here that hold another version of an incoming one: give each incoming one a fresh id. Returns old id → new id. */
export async function renameDiverged(placements: Placement[], projectDir: string): Promise<Map<string, string>> {
  const renames = new Map<string, string>();
  for (const main of placements.filter((p) => p.state === "different" && isMain(p, projectDir))) {
    const old = path.basename(main.to, ".jsonl");
    const fresh = await freeId(projectDir, old.length);
    renames.set(old, fresh);
    const oldSide = main.to.slice(0, -".jsonl".length) + path.sep;
    const stagedSide = main.from.slice(0, -".jsonl".length) + path.sep;
    for (const p of placements) {
      if (p !== main && !p.to.startsWith(oldSide)) continue;
      const to =
        p === main ? path.join(projectDir, `${fresh}.jsonl`) : path.join(projectDir, fresh, p.to.slice(oldSide.length));
      const from =
        p === main
          ? path.join(path.dirname(main.from), `${fresh}.jsonl`)
          : path.join(path.dirname(main.from), fresh, p.from.slice(stagedSide.length));
      await fs.mkdir(path.dirname(from), { recursive: true });
      await fs.writeFile(from, replaceAll(await fs.readFile(p.from), old, fresh));
      await fs.rm(p.from);
      Object.assign(p, { from, to, state: "beside" });
    }
    await fs.rm(stagedSide, { recursive: true, force: true });
  }
  return renames;
}

function isMain(p: Placement, projectDir: string): boolean {
  return p.to.endsWith(".jsonl") && path.dirname(p.to) === projectDir;
}

/** A claude session id of `length` characters (a uuid, as claude makes them) with neither a transcript nor a side folder here. */
async function freeId(projectDir: string, length: number): Promise<string> {
  for (;;) {
    const id = length === 36 ? randomUUID() : randomBytes(length).toString("hex").slice(0, length);
    const taken = await Promise.all(
      [`${id}.jsonl`, id].map((name) =>
        fs.lstat(path.join(projectDir, name)).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (!taken.some(Boolean)) return id;
  }
}

/** Every occurrence of `from` in `bytes` replaced by `to` (the same length: offsets stay). */
function replaceAll(bytes: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from);
  const b = Buffer.from(to);
  if (a.length !== b.length) throw new Error(`claude session ids of different lengths: ${from}, ${to}`);
  const out = Buffer.from(bytes);
  for (let at = out.indexOf(a); at !== -1; at = out.indexOf(a, at + a.length)) b.copy(out, at);
  return out;
}
