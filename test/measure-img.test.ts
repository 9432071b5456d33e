import { writeFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { it } from "vitest";
import { gitdir, tempDir } from "./support/gitdir.js";
import { recordSession } from "./support/record.js";
import { randomPng } from "./support/png.js";

function sizes(dir: string, rel = ""): Array<[string, number]> {
  return readdirSync(path.join(dir, rel)).flatMap((n) => {
    const r = rel ? `${rel}/${n}` : n;
    const s = statSync(path.join(dir, r));
    return s.isDirectory() ? sizes(dir, r) : [[r, s.size] as [string, number]];
  });
}
it("measure", async () => {
  for (const prompts of [1, 2]) {
    const repo = await gitdir();
    const shot = path.join(tempDir(), "shot.png");
    const png = randomPng(1024 * 1024);
    writeFileSync(shot, png);
    const r = await recordSession(repo, Array.from({ length: prompts }, () => ({ text: "OK" })), Array.from({ length: prompts }, (_, i) => `look ${i} ${shot}`));
    const all = sizes(r.dir);
    const total = all.reduce((a, [, b]) => a + b, 0);
    const transcript = all.filter(([n]) => n.startsWith("claude/")).reduce((a, [, b]) => a + b, 0);
    console.log(`MEASURE prompts=${prompts} png=${png.length} total=${total} transcript=${transcript} rest=${total - transcript} ${JSON.stringify(all.filter(([, b]) => b > 10000))}`);
  }
}, 180000);
