/**
 * The detection alone on the corpus (fixtures/secrets/corpus.json): every secret masked, every
 * look-alike left alone, and what each of the three detections finds on its own (printed; the
 * README's table). The same corpus goes through a real recorded session in share-corpus.test.ts.
 */
import { describe, expect, it } from "vitest";
import { entropyFindings } from "../../src/sharing/secret-entropy.js";
import { assignmentFindings, detectSecrets, secretlintFindings } from "../../src/sharing/secret-detect.js";
import { ruleFindings } from "../../src/sharing/secret-rules.js";
import { maskTextData } from "../../src/sharing/secrets.js";
import { loadCorpus } from "../support/secret-corpus.js";

const { secrets, lookalikes } = loadCorpus();

describe("the secret corpus", () => {
  it("is at least 60 secrets of at least 25 kinds, and 60 look-alikes", () => {
    expect(secrets.length).toBeGreaterThanOrEqual(60);
    expect(new Set(secrets.map((s) => s.kind)).size).toBeGreaterThanOrEqual(25);
    expect(lookalikes.length).toBeGreaterThanOrEqual(60);
  });

  it("masks every secret, alone and inside prose; leaves every look-alike alone; says what each detection finds", async () => {
    const missed: string[] = [];
    const by = { secretlint: 0, rules: 0, entropy: 0, any: 0 };
    for (const s of secrets) {
      for (const text of [s.text, `see this:\n${s.text}\nthanks`]) {
        const masked = (await maskTextData(text)).data.toString();
        for (const needle of s.needles) if (masked.includes(needle)) missed.push(`${s.kind}: ${text.slice(0, 60)}`);
      }
      const covers = (spans: Array<{ start: number; end: number }>) => s.needles.every((n) => spans.some((sp) => s.text.slice(sp.start, sp.end).includes(n) || n.includes(s.text.slice(sp.start, sp.end))));
      const a = covers(await secretlintFindings(s.text));
      const b = covers([...ruleFindings(s.text), ...assignmentFindings(s.text)]);
      const c = covers(entropyFindings(s.text));
      by.secretlint += Number(a);
      by.rules += Number(b);
      by.entropy += Number(c);
      by.any += Number(a || b || c);
    }
    const flagged: string[] = [];
    for (const l of lookalikes) if ((await detectSecrets(l.text)).length) flagged.push(`${l.kind}: ${l.text.slice(0, 60)}`);
    console.log(
      [
        `corpus: ${secrets.length} secrets of ${new Set(secrets.map((s) => s.kind)).size} kinds, ${lookalikes.length} look-alikes`,
        `found alone by secretlint's preset: ${by.secretlint}; by the gitleaks-modelled rules and the assignments: ${by.rules}; by the entropy check: ${by.entropy}; by any: ${by.any}`,
        `look-alikes masked: ${flagged.length} of ${lookalikes.length}`,
      ].join("\n"),
    );
    expect(missed).toEqual([]);
    expect(flagged.length / lookalikes.length).toBeLessThanOrEqual(0.02);
  });
});
