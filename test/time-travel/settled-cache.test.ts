/**
 * The cache of settled rewind records (rewinds/settled.txt) that spares every command reading
 * every record: a record cut off halfway is still found whatever the cache says — with it
 * missing, damaged, or listing the record's stamp from before its file changed.
 */
import { execa } from "execa";
import { lstatSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
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

    // A record rewritten as "started" (as only damage from outside could do): its file changed, so it is read again.
    const cut = record(repo, 12, "started");
    await saveRecord(store, cut);
    utimesSync(path.join(rewindsDir(store), `${cut.stamp}.json`), new Date(), new Date(Date.now() + 5_000));
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
