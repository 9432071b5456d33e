/**
 * Rules kept as data (gitleaks' default set, ported by scripts/port-gitleaks-rules.mjs, and the
 * providers' formats no public set has yet), run the way gitleaks runs them: a rule's regex only
 * where one of its keywords occurs, a window around each, and the secret only when it is random
 * enough for the rule and no allowlist of the rule names it.
 *
 * The regexes are RE2's, matched by re2js: time proportional to pattern × window, whatever the
 * text, so a foreign rule set cannot make a scan hang. The keywords are found in one pass by an
 * Aho–Corasick table (keyword-matcher.ts), which keeps the cost of 250 rules near one.
 */
import { RE2JS } from "re2js";
import type { SecretSpan } from "./secret-detect.js";
import { RULE_PREFILTERS } from "./rule-prefilters.js";
import { KeywordMatcher } from "./keyword-matcher.js";
import { shannon } from "./secret-entropy.js";

export interface PortedRule {
  id: string;
  /** RE2 syntax. The secret is group `group`, else the first group that matched, else the whole match. */
  regex: string;
  /** Lower case; the rule runs only near one of them. */
  keywords: string[];
  group?: number;
  /** Least Shannon entropy (bits per character) of the secret. */
  entropy?: number;
  /** Findings to drop: a regex found in the secret (or the whole match, or its line), or a stopword in the secret. */
  allow?: Array<{ target?: string; regexes?: string[]; stopwords?: string[] }>;
}

/** How far around a keyword a rule looks: most secrets sit just after their keyword, a few (JWTs, keys) run long. */
const BEFORE = 160;
const AFTER = 1024;
const AFTER_LONG = 4096;

interface Compiled {
  rule: PortedRule;
  multiline: boolean;
  /** A rule whose secret may run past AFTER (an open or a 3-digit repeat). */
  long: boolean;
  /** What every match contains (rule-prefilters.ts): a window without it is skipped. */
  prefilter?: RegExp;
  /** Compiled on the rule's first keyword hit: most texts hold few rules' keywords. */
  re?: RE2JS;
  allow?: Array<{ target: string; regexes: RE2JS[]; stopwords: string[] }>;
}

export class PortedRules {
  private readonly compiled: Compiled[];
  /** Per keyword (as the matcher numbers them), the rules that name it. */
  private readonly byKeyword: number[][];
  private readonly keywords: KeywordMatcher;

  /** `prefilters`: by rule id, as in rule-prefilters.ts (a test runs the rules without them too). */
  constructor(rules: PortedRule[], prefilters: Record<string, RegExp> = RULE_PREFILTERS) {
    this.compiled = rules.map((rule) => ({
      rule,
      multiline: /\(\?s|\\n|\\r|\[\\s\\S/.test(rule.regex),
      long: /,\}|\{\d{3,}|,\d{3,}\}|[*+]/.test(rule.regex),
      prefilter: prefilters[rule.id],
    }));
    const all = [...new Set(rules.flatMap((r) => r.keywords))];
    this.byKeyword = all.map((keyword) => rules.flatMap((r, i) => (r.keywords.includes(keyword) ? [i] : [])));
    // Every occurrence is reported, those inside a longer keyword too, so each keyword needs only its own rules.
    this.keywords = new KeywordMatcher(all);
  }

  findings(text: string): SecretSpan[] {
    const windows = this.windows(text);
    const found: SecretSpan[] = [];
    for (const [index, spans] of windows) {
      const c = this.compiled[index]!;
      for (const [from, to] of spans) found.push(...this.run(c, text, from, to));
    }
    return found;
  }

  /** Per rule, the merged windows around its keywords' occurrences. */
  private windows(text: string): Map<number, Array<[number, number]>> {
    const hits: number[] = [];
    this.keywords.each(text, (at, keyword) => hits.push(at, keyword));
    // In order of where they start: a long keyword is reported at its end, after a short one that starts later.
    const order = Array.from({ length: hits.length / 2 }, (_, i) => i).sort((a, b) => hits[2 * a]! - hits[2 * b]!);
    const out = new Map<number, Array<[number, number]>>();
    // The line around each hit, found once per hit and by cursors that only move forward (hits are
    // in order): a scan per hit and rule to the line's ends would be quadratic on a long line.
    let lineStart = 0;
    let lineEnd = -1;
    for (const h of order) {
      const at = hits[2 * h]!;
      if (at >= lineEnd) {
        const nl = text.indexOf("\n", at);
        lineEnd = nl === -1 ? text.length : nl;
        lineStart = text.lastIndexOf("\n", at) + 1;
      }
      for (const index of this.byKeyword[hits[2 * h + 1]!]!) {
        const c = this.compiled[index]!;
        const reach = c.long ? AFTER_LONG : AFTER;
        const from = c.multiline ? Math.max(0, at - BEFORE) : Math.max(lineStart, at - BEFORE);
        const to = Math.min(c.multiline ? text.length : lineEnd, at + reach);
        const list = out.get(index) ?? [];
        const last = list.at(-1);
        if (last && from <= last[1]) last[1] = Math.max(last[1], to);
        else list.push([from, to]);
        out.set(index, list);
      }
    }
    return out;
  }

  /** Every regex compiled now (a test's check that the whole set is valid RE2). */
  compileAll(): void {
    for (const c of this.compiled) compile(c);
  }

  private run(c: Compiled, text: string, from: number, to: number): SecretSpan[] {
    const found: SecretSpan[] = [];
    const window = text.slice(from, to);
    if (c.prefilter && !c.prefilter.test(window)) return found;
    const { re, allow } = compile(c);
    const m = re.matcher(window);
    while (m.find()) {
      let g = c.rule.group ?? 0;
      if (g === 0)
        for (let i = 1; i <= m.groupCount(); i++)
          if (m.group(i) !== null && m.group(i) !== "") ((g = i), (i = Infinity));
      const secret = m.group(g);
      if (!secret) continue;
      if (c.rule.entropy !== undefined && shannon(secret) < c.rule.entropy) continue;
      const start = from + m.start(g);
      if (allow.some((a) => allowed(a, secret, m.group(0)!, () => lineOf(text, start)))) continue;
      found.push({ kind: c.rule.id, start, end: start + secret.length });
    }
    return found;
  }
}

function compile(c: Compiled): Required<Compiled> {
  c.re ??= RE2JS.compile(c.rule.regex);
  c.allow ??= (c.rule.allow ?? []).map((a) => ({
    target: a.target ?? "secret",
    regexes: (a.regexes ?? []).map((r) => RE2JS.compile(r)),
    stopwords: a.stopwords ?? [],
  }));
  return c as Required<Compiled>;
}

/** `line` is read only for an allowlist on the line: finding a long line's ends per match would be quadratic. */
function allowed(
  a: NonNullable<Compiled["allow"]>[number],
  secret: string,
  match: string,
  line: () => string,
): boolean {
  const target = a.target === "match" ? match : a.target === "line" ? line() : secret;
  if (a.regexes.some((re) => re.matcher(target).find())) return true;
  const lower = secret.toLowerCase();
  return a.stopwords.some((w) => lower.includes(w));
}

function lineOf(text: string, at: number): string {
  const end = text.indexOf("\n", at);
  return text.slice(text.lastIndexOf("\n", at) + 1, end === -1 ? text.length : end);
}
