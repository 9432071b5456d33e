/**
 * A random-looking value next to a key-like name (`client_secret = "…"`, `signing key: …`, `with
 * secret wJalr…`, `export github_token=…`): what no token format names, found by its randomness.
 * The name alone is not enough (`token = getToken()`), nor is randomness alone (a git SHA, a
 * lockfile hash): both must hold.
 */
import type { SecretSpan } from "./secret-detect.js";
import { isSecretName, nameAround } from "./secret-names.js";

/**
 * The keyword, the rest of its name (bounded), a separator (`=`, `:`, `=>`, `is`, or only
 * spaces, as in prose; never nothing, so `tokenizerVocab…` is one name), then the value. Anchored on the keyword and bounded everywhere but the
 * value's one character class, so it runs in linear time.
 */
const NAMED_VALUE =
  /(?:key|token|secret|pass|pw|pwd|cred|auth)[\w.-]{0,30}["']?(?:[ \t]{0,4}(?:=>|:=|[:=])[ \t]{0,4}|[ \t]{1,4}(?:is[ \t]{1,4})?)["']?(?<value>[A-Za-z0-9+/=_.~-]{16,400})(?![A-Za-z0-9+/=_.~-])/gi;

/** Below this many bits per character a value reads as words or an identifier, not a random secret. */
const MIN_BITS_PER_CHAR = 3.5;

export function entropyFindings(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(NAMED_VALUE)) {
    const value = m.groups!.value!;
    const nameEnd = m.index + m[0].search(/["']?(?:[ \t]|=|:)/);
    if (!isSecretName(nameAround(text, m.index, nameEnd))) continue;
    // A secret's name makes a hex value a secret too (SECRET_KEY_BASE=<hex>, app_key: <hex>): a hash has another name.
    if (!looksRandom(value) && !/^[0-9a-f]{16,}$/i.test(value)) continue;
    const start = m.index + m[0].length - value.length;
    found.push({ kind: "high-entropy-secret", start, end: start + value.length });
  }
  return found;
}

function looksRandom(value: string): boolean {
  // Hashes and ids are random but not secret: a git SHA or sha256 (hex), a UUID, a dotted name.
  if (/^[0-9a-f]+$/i.test(value) || /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(value)) return false;
  if (/^(?:sha(?:1|256|384|512)|md5)[-:]/i.test(value) || (/^[\w-]+(?:\.[\w-]+)+$/.test(value) && !/\d/.test(value)))
    return false;
  // A name with a hash after it: node-modules-<sha256>, build-<sha>.
  if (/^[a-z][a-z0-9_-]*[-_][0-9a-f]{16,}$/.test(value)) return false;
  // Letters alone, or with slashes and dashes, are words, CamelCase names or paths (ArrowDownPageUp,
  // prod/database/credentials); a random secret of 16+ characters mixes three kinds, or has a digit.
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((c) => c.test(value)).length;
  return (classes >= 3 || (classes === 2 && /\d/.test(value))) && shannon(value) >= MIN_BITS_PER_CHAR;
}

/** Shannon entropy of the value's characters, in bits per character. */
export function shannon(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}
