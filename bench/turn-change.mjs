/**
 * What a benchmark turn does to the work tree, shared by the stand-in claude (which makes the
 * change during its turn) and by the bench itself (which makes the same change in a twin
 * repository, for git to commit or check out). Plain JavaScript: the stand-in runs on bare node.
 *
 * - "small": edit one tracked file, add one new file (what a typical turn does)
 * - "binary": change one byte of the tracked 50 MB binary `assets/big.bin`
 * - "many": edit 1,000 tracked files (src/m0/d0 to d9) and add 100 new ones (a large agent edit)
 * - "none": change nothing
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";

export const EDITED_FILE = "src/m0/d0/f0.ts";
export const BIG_BINARY = "assets/big.bin";
/** What a "many" turn edits and adds. */
export const MANY_EDITED = 1000;
export const MANY_ADDED = 100;

/** @param {string} root @param {number} n @param {string} kind */
export function applyTurnChange(root, n, kind) {
  if (kind === "small") {
    writeFileSync(path.join(root, EDITED_FILE), `export const v0 = ${n};\n`);
    mkdirSync(path.join(root, "added"), { recursive: true });
    writeFileSync(path.join(root, "added", `turn-${n}.ts`), `export const t${n} = ${n};\n`);
  } else if (kind === "binary") {
    const fd = openSync(path.join(root, BIG_BINARY), "r+");
    try {
      writeSync(fd, Buffer.from([n & 0xff]), 0, 1, 1_000_000 + n);
    } finally {
      closeSync(fd);
    }
  } else if (kind === "many") {
    for (let i = 0; i < MANY_EDITED; i++)
      writeFileSync(path.join(root, `src/m0/d${Math.floor(i / 100)}/f${i}.ts`), `export const v${i} = ${n};\n`);
    const added = path.join(root, "added", `many-${n}`);
    mkdirSync(added, { recursive: true });
    for (let i = 0; i < MANY_ADDED; i++) writeFileSync(path.join(added, `a${i}.ts`), `export const a${i} = ${n};\n`);
  } else if (kind !== "none") {
    throw new Error(`unknown turn change: ${kind}`);
  }
}
