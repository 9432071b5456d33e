/**
 * A quick "yes" for zod: a plain function, compiled once from a schema, that says a JSON value is
 * exactly what the schema's parse would return, so the parse can be skipped. zod/mini checks a
 * value by walking its schema object by object (~40 µs for a turn record in a fresh process, where
 * `JSON.parse` of the line takes ~1 µs): reading a 1,000-turn journal cost `session show` ~120 ms.
 *
 * It only ever answers for zod, never against it:
 * - `true`: zod's parse succeeds and returns an equal value, keys in the same order (no unknown
 *   key stripped, nothing defaulted or transformed), so the value can be used as parsed.
 * - `false`: ask zod, which may still accept it (an unknown key it strips) and otherwise says what
 *   is wrong. Every schema part it does not know compiles to `false`, so a schema it cannot follow
 *   costs a parse, never a wrong answer.
 * The journal's tests hold it to zod's own answers over records damaged in every field.
 */
import type * as z from "./zod.js";

type Accept = (value: unknown) => boolean;

const NEVER: Accept = () => false;
const compiled = new WeakMap<object, Accept>();

/** The quick check for `schema` (compiled on first use, then kept). */
export function acceptor(schema: z.ZodMiniType): Accept {
  let accept = compiled.get(schema);
  if (!accept) compiled.set(schema, (accept = compile(schema)));
  return accept;
}

/**
 * `schema.safeParse(value)`, with the value taken as it is when the quick check says zod would
 * return it unchanged (a session's header: ~60 µs of zod's walk each, and a listing of 5,000
 * sessions reads every one).
 */
export function quickParse<S extends z.ZodMiniType>(schema: S, value: unknown): ReturnType<S["safeParse"]> {
  if (acceptor(schema)(value)) return { success: true, data: value } as ReturnType<S["safeParse"]>;
  return schema.safeParse(value) as ReturnType<S["safeParse"]>;
}

/** A schema's definition, as zod keeps it (the parts read here). */
interface Def {
  type: string;
  checks?: { _zod: { def: CheckDef } }[];
  check?: string;
  format?: string;
  pattern?: RegExp;
  coerce?: boolean;
  innerType?: Schema;
  element?: Schema;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  keyType?: Schema;
  valueType?: Schema;
  values?: unknown[];
  options?: Schema[];
  discriminator?: string;
}
interface CheckDef {
  check: string;
  format?: string;
  pattern?: RegExp;
  value?: unknown;
  inclusive?: boolean;
}
interface Schema {
  _zod: { def: Def; values?: Set<unknown> };
}

function compile(schema: unknown): Accept {
  const s = schema as Schema;
  const def = s._zod.def;
  if (def.coerce) return NEVER;
  const base = baseOf(s);
  const checks: Accept[] = [];
  for (const check of def.checks ?? []) {
    const test = checkOf(check._zod.def);
    if (test === null) return NEVER;
    if (test !== "nothing") checks.push(test);
  }
  if (checks.length === 0) return base;
  return (value) => base(value) && checks.every((check) => check(value));
}

/** The value's own test, before the checks added to the schema. */
function baseOf(schema: Schema): Accept {
  const def = schema._zod.def;
  switch (def.type) {
    case "string": {
      if (def.check === undefined) return (v) => typeof v === "string";
      const pattern =
        def.check === "string_format" && (def.format === "datetime" || def.format === "regex")
          ? def.pattern
          : undefined;
      return pattern ? (v) => typeof v === "string" && matches(pattern, v) : NEVER;
    }
    case "number":
      if (def.check === undefined) return (v) => typeof v === "number" && Number.isFinite(v);
      return def.check === "number_format" && def.format === "safeint" ? (v) => Number.isSafeInteger(v) : NEVER;
    case "boolean":
      return (v) => typeof v === "boolean";
    case "unknown":
      return () => true;
    case "literal":
    case "enum": {
      // The values zod itself allows (for an enum made from a TypeScript enum, not its reverse names).
      const values = schema._zod.values;
      return values ? (v) => values.has(v) : NEVER;
    }
    case "nullable": {
      const inner = compile(def.innerType);
      return (v) => v === null || inner(v);
    }
    case "optional": {
      const inner = compile(def.innerType);
      return (v) => v === undefined || inner(v);
    }
    case "array": {
      const element = compile(def.element);
      return (v) => Array.isArray(v) && v.every((item) => element(item));
    }
    case "record":
      // Only string keys with values of any kind: zod then copies the object as it is.
      return def.keyType?._zod.def.type === "string" &&
        !def.keyType._zod.def.checks?.length &&
        def.valueType?._zod.def.type === "unknown"
        ? (v) => isPlainObject(v) && !Object.hasOwn(v, "__proto__")
        : NEVER;
    case "object":
      return def.catchall ? NEVER : objectOf(def.shape ?? {});
    case "union":
      return def.discriminator ? discriminated(def.discriminator, def.options ?? []) : NEVER; // a plain union answers with its first success: not followed
    default:
      return NEVER;
  }
}

/** A check added to a schema: a pattern or a bound; "nothing" for a description; null: not followed. */
function checkOf(def: CheckDef): Accept | "nothing" | null {
  switch (def.check) {
    case "describe":
      return "nothing";
    case "string_format":
      return def.format === "regex" && def.pattern
        ? (
            (pattern) => (v: unknown) =>
              matches(pattern, v as string)
          )(def.pattern)
        : null;
    case "greater_than":
      if (typeof def.value !== "number") return null;
      return def.inclusive
        ? (
            (min) => (v: unknown) =>
              (v as number) >= min
          )(def.value)
        : (
            (min) => (v: unknown) =>
              (v as number) > min
          )(def.value);
    case "less_than":
      if (typeof def.value !== "number") return null;
      return def.inclusive
        ? (
            (max) => (v: unknown) =>
              (v as number) <= max
          )(def.value)
        : (
            (max) => (v: unknown) =>
              (v as number) < max
          )(def.value);
    default:
      return null;
  }
}

function matches(pattern: RegExp, value: string): boolean {
  pattern.lastIndex = 0; // as zod does: a global or sticky pattern would otherwise start where it last stopped
  return pattern.test(value);
}

/** An object as JSON.parse makes them; anything else (inherited fields, a Date, a class) is left to zod. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Every key of the value known to the shape and in the shape's order (zod's output order), every
 * field accepted, and every field that is missing allowed to be (an optional one).
 */
function objectOf(shape: Record<string, Schema>): Accept {
  const keys = Object.keys(shape);
  const position = new Map(keys.map((key, i) => [key, i]));
  const fields = keys.map((key) => ({
    key,
    accept: compile(shape[key]),
    optional: shape[key]!._zod.def.type === "optional",
  }));
  return (v) => {
    if (!isPlainObject(v)) return false;
    // Own keys only (JSON.parse makes nothing else), an own "__proto__" included: it is unknown.
    let last = -1;
    for (const key of Object.keys(v)) {
      const at = position.get(key);
      if (at === undefined || at < last) return false;
      last = at;
    }
    for (const field of fields) {
      const value = v[field.key];
      if (value === undefined ? !field.optional : !field.accept(value)) return false;
    }
    return true;
  };
}

/** zod's discriminated union: the option named by the discriminator's value decides. */
function discriminated(discriminator: string, options: Schema[]): Accept {
  const byValue = new Map<unknown, Accept>();
  for (const option of options) {
    const tag = option._zod.def.shape?.[discriminator]?._zod.def;
    if (option._zod.def.type !== "object" || tag?.type !== "literal" || !tag.values) return NEVER;
    const accept = compile(option);
    for (const value of tag.values) byValue.set(value, accept);
  }
  return (v) => isPlainObject(v) && (byValue.get(v[discriminator]) ?? NEVER)(v);
}
