/**
 * The detection alone on the corpus (fixtures/secrets/corpus.json): every secret masked, every
 * look-alike left alone, and what each detection finds on its own (printed). The same corpus goes through a real recorded session in share-corpus.test.ts.
 */
import { describe, expect, it } from "vitest";
import { entropyFindings } from "../../src/secrets/secret-entropy.js";
import { assignmentFindings, detectSecrets, secretlintFindings } from "../../src/secrets/secret-detect.js";
import { ruleFindings } from "../../src/secrets/secret-rules.js";
import { GITLEAKS_RULES } from "../../src/secrets/gitleaks-rules.js";
import { PortedRules } from "../../src/secrets/ported-rules.js";
import { PROVIDER_RULES } from "../../src/secrets/provider-rules.js";
import { blockFindings } from "../../src/secrets/secret-blocks.js";
import { maskTextData } from "../../src/secrets/secrets.js";
import { loadCorpus } from "../support/secret-corpus.js";

const { secrets, lookalikes } = loadCorpus();
const gitleaks = new PortedRules(GITLEAKS_RULES);
const providers = new PortedRules(PROVIDER_RULES);

describe("the secret corpus", () => {
  it("is at least 80 kinds of secrets and 40 look-alikes", () => {
    expect(new Set(secrets.map((s) => s.kind)).size).toBeGreaterThanOrEqual(80);
    expect(lookalikes.length).toBeGreaterThanOrEqual(40);
  });

  it("masks every secret, alone and inside prose; leaves every look-alike alone; says what each detection finds", async () => {
    const missed: string[] = [];
    const by = { secretlint: 0, gitleaks: 0, providers: 0, rules: 0, blocks: 0, entropy: 0, any: 0 };
    for (const s of secrets) {
      for (const text of [s.text, `see this:\n${s.text}\nthanks`]) {
        const masked = (await maskTextData(text)).data.toString();
        for (const needle of s.needles) if (masked.includes(needle)) missed.push(`${s.kind}: ${text.slice(0, 60)}`);
      }
      const covers = (spans: Array<{ start: number; end: number }>) =>
        s.needles.every((n) =>
          spans.some((sp) => s.text.slice(sp.start, sp.end).includes(n) || n.includes(s.text.slice(sp.start, sp.end))),
        );
      const a = covers(await secretlintFindings(s.text));
      const b = covers([...ruleFindings(s.text), ...assignmentFindings(s.text)]);
      const c = covers(entropyFindings(s.text));
      const g = covers(gitleaks.findings(s.text));
      const p = covers(providers.findings(s.text));
      const k = covers(blockFindings(s.text, () => []));
      by.secretlint += Number(a);
      by.gitleaks += Number(g);
      by.providers += Number(p);
      by.rules += Number(b);
      by.blocks += Number(k);
      by.entropy += Number(c);
      by.any += Number(a || b || c || g || p || k);
    }
    const flagged: string[] = [];
    for (const l of lookalikes)
      if ((await detectSecrets(l.text)).length) flagged.push(`${l.kind}: ${l.text.slice(0, 60)}`);
    console.log(
      [
        `corpus: ${secrets.length} secrets of ${new Set(secrets.map((s) => s.kind)).size} kinds, ${lookalikes.length} look-alikes`,
        `found alone by secretlint's preset: ${by.secretlint}; gitleaks' rules: ${by.gitleaks}; the providers' formats: ${by.providers}; nudge's rules and the assignments: ${by.rules}; the blocks: ${by.blocks}; the named-value check: ${by.entropy}; by any: ${by.any}`,
        `look-alikes masked: ${flagged.length} of ${lookalikes.length}`,
      ].join("\n"),
    );
    expect(missed).toEqual([]);
    expect(flagged.length / lookalikes.length).toBeLessThanOrEqual(0.02);
  });
});
