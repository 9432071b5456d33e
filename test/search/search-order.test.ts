/**
 * Why a search lists its hits newest first without ranking them: bm25 has nothing to go on in the
 * index's table (contentless, no positions), and scores every piece 0 whatever its words. Should
 * the table ever keep what bm25 needs (detail=full, content), this fails: ranking is worth having
 * again, and query.ts should ask for it.
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { insertPieces } from "../../src/search/catch-up.js";
import { openSearchDb } from "../../src/search/search-db.js";
import type { Store } from "../../src/store/store.js";

describe("the search index's order", () => {
  it("gives bm25 nothing to rank by: every piece scores 0, short or long, one match or many", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "nudge-search-order-"));
    const db = openSearchDb({ dir } as Store);
    try {
      const docs = ["timeout", "timeout timeout timeout", `timeout ${"filler words here ".repeat(200)}`, "unrelated"];
      insertPieces(
        db,
        "s1",
        { n: 1, key: "k", at: "2026-01-01T00:00:00.000Z", prompt: null },
        docs.map((text) => ({ place: "text" as const, tool: null, text })),
        [],
      );
      const scores = db
        .prepare("SELECT bm25(fts) AS score FROM fts WHERE fts MATCH ?")
        .all('"timeout"')
        .map((r) => (r as { score: number }).score);
      expect(scores).toHaveLength(3);
      expect(scores.every((s) => s === 0)).toBe(true);
    } finally {
      db.close();
    }
  });
});
