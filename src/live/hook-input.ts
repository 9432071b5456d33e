/**
 * What nudge reads of a claude hook's JSON, for the http hooks of `--tui` (tui-hooks.ts) and the
 * command hooks installed in claude's settings (hook-events.ts). Apart from both, so that a hook
 * process loads no http server to read its input.
 */
import * as z from "../base/zod.js";

/** claude sends more, and a field nudge does not know is no error. */
export const HookInput = z.looseObject({
  hook_event_name: z.string(),
  session_id: z.string().check(z.regex(/^[A-Za-z0-9._-]{1,200}$/)),
  transcript_path: z.optional(z.string()),
  prompt: z.optional(z.string()),
  tool_name: z.optional(z.string()),
  tool_input: z.optional(z.record(z.string(), z.unknown())),
});
export type HookInput = z.infer<typeof HookInput>;
