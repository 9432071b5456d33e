/**
 * The cache of settled rewind records (rewinds/settled.txt) that spares every command reading
 * every record: a record cut off halfway is still found with the cache present, missing or
 * damaged; a record the cache lists as settled is not read again.
 */
import { execa } from "execa";
import { lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/store.js";
import {
  interruptedIn,
  lastRewind,
  rewindsDir,
  saveRecord,
  type RewindRecord,
} from "../../src/time-travel/rewind-log.js";
import { gitdir } from "../support/gitdir.js";
import { rewindRecord } from "../support/rewind-record.js";

/** A record of a process that is not running: a "started" one of it was cut off. */
const record = (root: string, i: number, status: RewindRecord["status"]): RewindRecord =>
  rewindRecord(root, i, { status, owner: { pid: 2 ** 22 + 17, started: null } });

describe("settled rewind records", () => {
  it("an interrupted record is found with the cache present, missing, damaged or stale", async () => {
    const repo = await gitdir();
    const store = await openStore(repo);
    for (let i = 0; i < 30; i++) await saveRecord(store, record(repo, i, "applied"));
    expect(await interruptedIn(store, repo)).toBeNull();
    const cache = path.join(rewindsDir(store), "settled.txt");
    // The first look read them all and listed them as settled.
    expect(readFileSync(cache, "utf8").trim().split("\n")).toHaveLength(30);

    // Listed, a record is not read again (nudge never writes one back to "started"): the cache is what
    // spares a rewind reading, or even looking at, every record.
    const cut = record(repo, 12, "started");
    await saveRecord(store, cut);
    expect(await interruptedIn(store, repo)).toBeNull();
    // A cache an older nudge wrote (each name with its file's size and time) is read as names.
    writeFileSync(cache, readFileSync(cache, "utf8").replace(/\.json$/gm, ".json 123 456789"));
    expect(await interruptedIn(store, repo)).toBeNull();
    // Without the cache, every record is read: the one rewritten is found.
    rmSync(cache);
    expect((await interruptedIn(store, repo))?.stamp).toBe(cut.stamp);

    // A new record cut off halfway, the cache then deleted, then damaged.
    await saveRecord(store, record(repo, 12, "applied"));
    const later = record(repo, 40, "started");
    await saveRecord(store, later);
    expect((await interruptedIn(store, repo))?.stamp).toBe(later.stamp);
    rmSync(cache);
    expect((await interruptedIn(store, repo))?.stamp).toBe(later.stamp);
    writeFileSync(cache, "\u0000garbage\nnot a line\n");
    expect((await interruptedIn(store, repo))?.stamp).toBe(later.stamp);

    // Finished: nothing interrupted, and --undo's target is the newest applied one.
    await saveRecord(store, { ...later, status: "applied" });
    expect(await interruptedIn(store, repo)).toBeNull();
    expect((await lastRewind(store))?.stamp).toBe(later.stamp);
  });

  it("a FIFO in place of the cache hangs no command: it is no cache, and is made again", async () => {
    const repo = await gitdir();
    const store = await openStore(repo);
    const cut = record(repo, 3, "started");
    await saveRecord(store, record(repo, 1, "applied"));
    await saveRecord(store, cut);
    const cache = path.join(rewindsDir(store), "settled.txt");
    await execa("mkfifo", [cache]);
    // Opened as a file, a FIFO blocks until someone writes to it: the look would never end.
    const looked = await Promise.race([
      interruptedIn(store, repo),
      new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 10_000).unref()),
    ]);
    expect(looked).not.toBe("hung");
    expect((looked as RewindRecord | null)?.stamp).toBe(cut.stamp);
    expect(lstatSync(cache).isFile()).toBe(true);
  }, 30_000);
});
