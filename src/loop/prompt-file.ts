/** A loop's --prompt-file (and --verify's): read whole, checked to be short UTF-8 text. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { UserError } from "../base/errors.js";

export interface PromptFile {
  text: string;
  source: string;
}

export async function readPromptFile(file: string, flag = "--prompt-file"): Promise<PromptFile> {
  const full = path.resolve(file);
  const stat = await fs.stat(full).catch(() => null);
  if (!stat?.isFile())
    throw new UserError(
      `${flag}: ${stat ? "not a file" : "no such file"}: ${file}`,
      "give the path of a text file holding the prompt",
    );
  if (stat.size > 100_000)
    throw new UserError(
      `${flag}: ${file} is ${stat.size} bytes; a prompt is at most 100 kB`,
      "keep it short; claude can read long files itself",
    );
  const bytes = await fs.readFile(full);
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (text.includes("\uFFFD") || bytes.includes(0))
    throw new UserError(`${flag}: ${file} is not UTF-8 text`, "save it as UTF-8");
  return { text, source: file };
}
