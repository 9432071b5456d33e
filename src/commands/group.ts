/**
 * A command group (`nudge session …`) whose commands are loaded only when asked for: `nudge
 * session list` loads the list command and what it needs, not the code of every other command
 * (start-up time is most of what a quick command costs).
 */
import type { Command } from "commander";

export interface CommandGroup {
  name: string;
  description: string;
  helpAfter?: string;
  /** Each command by name (aliases too), loaded on demand. */
  commands: Record<
    string,
    {
      load: () => Promise<Command>;
      aliases?: string[];
      /** Not listed in help: a process nudge starts itself. */ hidden?: boolean;
    }
  >;
}

/** The names a group's command answers to, mapped to its own name. */
export function commandNames(group: CommandGroup): Map<string, string> {
  const names = new Map<string, string>();
  for (const [name, entry] of Object.entries(group.commands)) {
    names.set(name, name);
    for (const alias of entry.aliases ?? []) names.set(alias, name);
  }
  return names;
}
