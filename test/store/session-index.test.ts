/**
 * The session index (`<store>/sessions-index.txt`) and the paged `session list` it serves: the
 * index is rebuilt when deleted, repaired after a kill mid-write or a torn file, and never
 * disagrees with the bundles (a header changed since, a session removed, one imported). One real
 * recorded session (real claude, scripted API) and 24 older ones written in the bundle format
 * next to it; the built CLI.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { headerOf, writeBundle, writeHeader } from "../../src/store/store.js";
import { tempDir } from "../support/gitdir.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurnsForFile } from "../support/three-turns.js";

let repo: string;
let id: string;
let env: Record<string, string>;
let store: string;
let indexFile: string;
/** The synthetic sessions' ids, newest first. */
const older: string[] = [];

recordThreeTurnsForFile((recorded) => {
  ({ repo, id, env } = recorded);
  store = path.join(repo, ".git", "nudge");
  indexFile = path.join(store, "sessions-index.txt");
});

beforeAll(async () => {
  const real = readManifestFile(path.join(store, "sessions", id));
  for (let i = 0; i < 24; i++) {
    const other = `0ld${String(i).padStart(7, "0")}`;
    const at = new Date(Date.parse(real.createdAt) - (i + 1) * 3_600_000).toISOString();
    mkdirSync(path.join(store, "sessions", other));
    await writeBundle(path.join(store, "sessions", other), {
      ...real,
      id: other,
      createdAt: at,
      updatedAt: at,
      summary: { ...real.summary, lastPrompt: `old ${i}` },
    });
    older.push(other);
  }
});

const list = (...args: string[]) => runNudge(["session", "list", ...args], { cwd: repo, env });

async function listedIds(...args: string[]): Promise<string[]> {
  const run = await list("--json", ...args);
  expect(run.exitCode, run.stderr).toBe(0);
  // The recorded sessions: claude's own (a removed session's transcript is still claude's) follow as "claude".
  return (JSON.parse(run.stdout) as { id: string; source: string }[])
    .filter((r) => r.source === "nudge")
    .map((r) => r.id);
}

/** The ids of the table's rows. */
const tableIds = (stdout: string) => [...stdout.matchAll(/^([0-9a-z]{10}) /gm)].map((m) => m[1]);

/** The sessions folder must be older than its timestamp's resolution before the index may stand for it. */
const settle = () => new Promise((r) => setTimeout(r, 2_100));

/** The index names every session, and its lines and headers add up (a whole file, not a cut one). */
function expectWholeIndex(ids: string[]): void {
  const buf = readFileSync(indexFile);
  const [first, ...rest] = buf.toString("utf8", 0, buf.indexOf("\n\n")).split("\n");
  const [magic, , total, headersAt] = first!.split("\t");
  expect(magic).toBe("nudge sessions index 3");
  expect(Number(total)).toBe(ids.length);
  expect(rest.map((l) => l.split("\t")[0]).sort()).toEqual([...ids].sort());
  const headerBytes = rest.reduce((n, l) => n + Number(l.split("\t")[4]), 0);
  expect(buf.length).toBe(Number(headersAt) + headerBytes);
}

describe("session list with many sessions", () => {
  it("shows the newest 20 and says how many more there are; --all, --json and --limit", async () => {
    const all = [id, ...older];
    const first = await list();
    expect(first.exitCode, first.stderr).toBe(0);
    expect(tableIds(first.stdout)).toEqual(all.slice(0, 20));
    expect(first.stdout).toMatch(/^5 older sessions not shown \(20 of 25\); every one: nudge session list --all$/m);
    const every = await list("--all");
    expect(tableIds(every.stdout)).toEqual(all);
    expect(every.stdout).not.toMatch(/not shown/);
    expect(await listedIds()).toEqual(all);
    expect(await listedIds("--all")).toEqual(all);
    expect(await listedIds("--limit", "3")).toEqual(all.slice(0, 3));
    const bad = await list("--limit", "0");
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/^error: invalid --limit: /m);
  });

  it("is rebuilt when deleted, and left as it is while nothing changed", async () => {
    const before = (await list()).stdout;
    rmSync(indexFile);
    const again = await list();
    expect(again.stdout).toBe(before);
    expectWholeIndex([id, ...older]);
    await settle();
    await list(); // the folder is settled now: the index is written once more, saying so
    const ino = statSync(indexFile).ino;
    expect((await list()).stdout).toBe(before);
    expect(statSync(indexFile).ino).toBe(ino);
  });

  it("shows a header changed after the index was written, on the first screen and past it", async () => {
    await list();
    await settle();
    await list();
    const dir = path.join(store, "sessions", id);
    const header = headerOf(readManifestFile(dir));
    // The newest session, on the first screen: its header now says recording (no lock: it crashed) and has a new last prompt.
    await writeHeader(dir, {
      ...header,
      state: "recording",
      summary: { ...header.summary, lastPrompt: "changed since" },
    });
    const first = await list();
    expect(first.stdout).toMatch(new RegExp(`^${id} .* crashed +write notes +changed since`, "m"));
    const oldest = older.at(-1)!;
    const oldDir = path.join(store, "sessions", oldest);
    const old = headerOf(readManifestFile(oldDir));
    await writeHeader(oldDir, { ...old, summary: { ...old.summary, turns: 7 } });
    const rows = JSON.parse((await list("--json")).stdout) as {
      id: string;
      turns: number;
      state: string;
      lastPrompt: string;
    }[];
    expect(rows.find((r) => r.id === oldest)).toMatchObject({ turns: 7 });
    expect(rows.find((r) => r.id === id)).toMatchObject({ state: "crashed", lastPrompt: "changed since" });
    await writeHeader(dir, header);
    await writeHeader(oldDir, old);
    expect((await list()).stdout).toMatch(new RegExp(`^${id} .* complete +write notes +shuffle the files`, "m"));
  });

  it("is whole again after a kill while it was written, or a cut file; housekeeping takes the killed writer's temp file", async () => {
    const expected = (await list()).stdout;
    rmSync(indexFile);
    const killed = await runNudge(["session", "list"], {
      cwd: repo,
      env: { ...env, NUDGE_FAULT: "session-index:kill" },
    });
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(indexFile)).toBe(false);
    const temp = readdirSync(store).filter((n) => n.startsWith(".sessions-index.txt.") && n.endsWith(".tmp"));
    expect(temp).toHaveLength(1);
    expect((await list()).stdout).toBe(expected);
    expectWholeIndex([id, ...older]);
    const gc = JSON.parse((await runNudge(["session", "gc", "--dry-run", "--json"], { cwd: repo, env })).stdout) as {
      plan: { leftovers: { path: string }[] };
    };
    expect(gc.plan.leftovers.map((l) => l.path)).toContain(path.join(store, temp[0]!));
    rmSync(path.join(store, temp[0]!));

    // Cut in the middle of the headers, then in the middle of the lines.
    for (const cut of [0.8, 0.05]) {
      await settle();
      await list();
      const whole = readFileSync(indexFile);
      writeFileSync(indexFile, whole.subarray(0, Math.floor(whole.length * cut)));
      expect((await list()).stdout).toBe(expected);
      expect(await listedIds()).toEqual([id, ...older]);
      expectWholeIndex([id, ...older]);
    }
  });

  it("several nudges writing it at once: each lists what the bundles say, and the index left is whole", async () => {
    const all = [id, ...older];
    rmSync(indexFile);
    const oldDir = path.join(store, "sessions", older[3]!);
    const old = headerOf(readManifestFile(oldDir));
    // Eight listings rebuild the index at once while a header changes under them.
    const runs = Array.from({ length: 8 }, (_, i) => (i % 2 ? list("--all", "--json") : list("--limit", "25")));
    await writeHeader(oldDir, { ...old, summary: { ...old.summary, turns: 9 } });
    for (const run of await Promise.all(runs)) {
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toBe("");
    }
    expectWholeIndex(all);
    expect(readdirSync(store).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    const rows = JSON.parse((await list("--json")).stdout) as { id: string; turns: number }[];
    expect(rows.map((r) => r.id)).toEqual(all);
    expect(rows.find((r) => r.id === older[3])).toMatchObject({ turns: 9 });
    await settle();
    await list();
    expect((await list()).stdout).toMatch(new RegExp(`^${older[3]} .* 9 +\\$`, "m"));
    await writeHeader(oldDir, old);
  });

  it("drops a session removed with session rm, and shows it again once imported", async () => {
    const archive = path.join(tempDir("nudge-index-export-"), "s.tar.gz");
    const exported = await runNudge(["session", "export", id, "-o", archive], { cwd: repo, env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    await settle();
    expect(tableIds((await list()).stdout)[0]).toBe(id);
    const rm = await runNudge(["session", "rm", id, "--yes"], { cwd: repo, env });
    expect(rm.exitCode, rm.stderr).toBe(0);
    const after = await list();
    expect(tableIds(after.stdout)).toEqual(older.slice(0, 20));
    expect(after.stdout).toMatch(/^4 older sessions not shown \(20 of 24\)/m);
    expect(await listedIds()).toEqual(older);
    await settle();
    await list();
    const imported = await runNudge(["session", "import", archive], { cwd: repo, env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(tableIds((await list()).stdout)[0]).toBe(id);
    expect(await listedIds()).toEqual([id, ...older]);
  });

  it("shows a session folder put in the store by other means (a copy, a sync) once the index stood for the folder without it", async () => {
    await settle();
    await list();
    expect(await listedIds()).toEqual([id, ...older]);
    const copy = "c0py000000";
    const real = readManifestFile(path.join(store, "sessions", id));
    mkdirSync(path.join(store, "sessions", copy));
    await writeBundle(path.join(store, "sessions", copy), { ...real, id: copy, createdAt: new Date().toISOString() });
    await settle(); // the folder with the copy is as settled as the one the index was written for
    expect(tableIds((await list()).stdout).slice(0, 2)).toEqual([copy, id]);
    rmSync(path.join(store, "sessions", copy), { recursive: true });
    expect(tableIds((await list()).stdout)[0]).toBe(id);
  });
});
