/**
 * What an option's schema accepts, in nudge's words ("a whole number above 0", `"none"`), and a
 * value it accepts, for the error of a bad flag. Read from the schema itself, so a command's
 * options need no second description; a check with a message of its own (a refine, a regex) says
 * it in its own words and is not described here.
 */
import type * as z from "../base/zod.js";

export interface Accepted {
  /** Each way the option can be given, e.g. ["a whole number above 0", `"none"`]. */
  words: string[];
  /** A value it accepts, for an example; null when none can be told. */
  example: string | null;
}

interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  options?: z.core.$ZodType[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  checks?: Array<{ _zod: { def: { check: string; value?: unknown; inclusive?: boolean; format?: string } } }>;
  defaultValue?: unknown;
}

export function accepted(schema: z.core.$ZodType): Accepted {
  const def = schema._zod.def as unknown as Def;
  switch (def.type) {
    case "optional":
    case "nullable":
    case "readonly":
    case "nonoptional":
      return accepted(def.innerType!);
    case "default": {
      const inner = accepted(def.innerType!);
      const value = def.defaultValue;
      return {
        ...inner,
        example: typeof value === "number" || typeof value === "string" ? String(value) : inner.example,
      };
    }
    case "pipe":
      return accepted(def.in!);
    case "union": {
      // A boolean branch is the flag given without a value: nothing to say about it.
      const parts = def.options!.map(accepted);
      return {
        words: parts.flatMap((p) => p.words),
        example:
          parts
            .map((p) => p.example)
            .reverse()
            .find((e) => e !== null) ?? null,
      };
    }
    case "literal":
      return {
        words: def.values!.map((v) => JSON.stringify(v)),
        example: def.values!.length ? String(def.values![0]) : null,
      };
    case "enum": {
      const values = Object.values(def.entries!).map(String);
      return { words: [`one of ${values.join(", ")}`], example: values[0] ?? null };
    }
    case "number":
      return numberWords(def);
    case "string":
      return { words: ["a value"], example: null };
    default:
      return { words: [], example: null };
  }
}

function numberWords(def: Def): Accepted {
  let whole = false;
  let low: { value: number; inclusive: boolean } | null = null;
  let high: { value: number; inclusive: boolean } | null = null;
  for (const { _zod } of def.checks ?? []) {
    const c = _zod.def;
    if (c.check === "number_format" && /int/.test(c.format ?? "")) whole = true;
    else if (c.check === "greater_than" && typeof c.value === "number")
      low = { value: c.value, inclusive: c.inclusive ?? false };
    else if (c.check === "less_than" && typeof c.value === "number")
      high = { value: c.value, inclusive: c.inclusive ?? false };
  }
  // The int format's own bound (2^53) is no limit a person needs to hear about.
  if (high && high.value >= Number.MAX_SAFE_INTEGER) high = null;
  const kind = whole ? "a whole number" : "a number";
  const range =
    low && high && low.inclusive && high.inclusive
      ? ` from ${low.value} to ${high.value}`
      : [
          low && (low.inclusive ? ` of at least ${low.value}` : ` above ${low.value}`),
          high && (high.inclusive ? ` of at most ${high.value}` : ` below ${high.value}`),
        ]
          .filter(Boolean)
          .join(" and");
  const start = low ? (low.inclusive ? low.value : whole ? Math.floor(low.value) + 1 : low.value + 1) : 1;
  const example = high && start > high.value ? (low?.value ?? high.value) : start;
  return { words: [`${kind}${range}`], example: String(example) };
}
