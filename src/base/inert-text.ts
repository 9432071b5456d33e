/**
 * Text nudge did not write itself (claude's words, tool inputs and outputs, prompts and titles read
 * from a bundle or an imported export, file names) made inert for a terminal: every character a
 * terminal would obey rather than print is shown as an escape instead. One module, used by every
 * output path, so that the only escape sequences reaching the terminal are the ones nudge writes:
 * its SGR colours, and the screen's own cursor movement (src/terminal/screen.ts).
 *
 * What counts: C0 controls but \n and \t (ESC starts every sequence; \r and \b overwrite what is on
 * the line), DEL, C1 controls (U+0080–U+009F: a terminal that takes UTF-8 C1 takes U+009B as CSI,
 * U+009D as OSC), and the bidirectional overrides and isolates that reorder what a line seems to
 * say (Trojan Source: U+202A–U+202E, U+2066–U+2069, and the marks U+061C, U+200E, U+200F), and
 * the invisible ones that hide in a name or a command (U+200B zero width space, U+2060–U+2064
 * word joiner and invisible operators, U+FEFF, U+180E). The joiners U+200C and U+200D stay: emoji
 * sequences and scripts such as Persian and the Indic ones need them to be drawn right.
 */

const CONTROL =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
const ANY_CONTROL = new RegExp(CONTROL.source);
/** An SGR sequence (colour, bold, dim) as style.ts writes it: the only kind `inert` lets through. */
const SGR_OR_CONTROL =
  /(\u001b\[[0-9;]*m)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** `\x1b` for a byte-sized control, `\u202e` for the rest. */
function shown(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Outside text with its control characters shown, not obeyed: an ESC in a message prints as
 * `\x1b`, a carriage return as `\x0d`. A CRLF line end is a line end (a file written on Windows is
 * not an attack). Newlines and tabs stay: the screen expands tabs where it must know the width.
 */
export function visible(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(CONTROL, shown);
}

/** `visible`, and on one line: an error's message and hint, which may quote what the user typed (an id with a line break). */
export function visibleLine(text: string): string {
  return visible(text).replace(/\n/g, "\\n");
}

/**
 * The output layer's guard, for text about to be written to stdout or stderr: nudge's own SGR
 * colours stay, every other control is shown. It cannot tell claude's SGR from nudge's, which is
 * why outside text goes through `visible` (or `inertValue`) before nudge styles it; this catches
 * whatever a path forgot, so no such text can move the cursor, retitle the window or clear the
 * screen.
 */
export function inert(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(SGR_OR_CONTROL, (match, sgr: string | undefined) => sgr ?? shown(match));
}

/** Every string in a value (an event from claude, a manifest) made `visible`, keys and shape kept. */
export function inertValue<T>(value: T): T {
  if (typeof value === "string") return visible(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => inertValue(v)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = inertValue(v);
    return out as T;
  }
  return value;
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but writes DEL, C1 and the bidi
 * controls as they are. Escaped as \uXXXX the JSON means the same and prints inert.
 */
export function inertJson(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const JSON_SHORT: Record<string, string> = { b: "\\x08", f: "\\x0c", r: "\\x0d" };

/**
 * JSON for people (a tool's input under `-v`, a quoted file name): JSON's own escapes for C0
 * controls (`\u001b`, `\r`) are written in `visible`'s style (`\x1b`, `\x0d`) and the controls
 * JSON.stringify leaves as they are are escaped, so a name reads the same in every view.
 */
export function visibleJson(value: unknown, indent?: number): string {
  return visibleJsonText(JSON.stringify(value, null, indent) ?? String(value));
}

/** `visibleJson` of JSON text as it is (a tool's input as claude sent it). */
export function visibleJsonText(json: string): string {
  return visible(
    json.replace(/\\(\\|[bfr]|u00([0-9a-f]{2}))/g, (escape, what: string, hex: string | undefined) =>
      hex ? `\\x${hex}` : (JSON_SHORT[what] ?? escape),
    ),
  );
}

/** Whether text holds anything `visible` would change (a file name to quote). */
export function hasControls(text: string): boolean {
  return ANY_CONTROL.test(text);
}
