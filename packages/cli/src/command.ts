import type { Database } from './database.js';

/** A positional argument of a command. */
export interface ArgumentSpec {
  name: string;
  help: string;
  /** The only values accepted, when the set is closed. */
  choices?: readonly string[];
}

/** An option of a command: `--name <value>`, or a flag when `value` is absent. */
export interface OptionSpec {
  /** The placeholder shown in help (`<seconds>`); a flag has none. */
  value?: string;
  help: string;
  choices?: readonly string[];
  /** The command cannot run without it. */
  required?: boolean;
}

/** What a command prints: one JSON document with `--json`, `text` otherwise. */
export interface Outcome {
  json: unknown;
  text: string;
}

/** The arguments and options a command was given, checked against its spec. */
export interface CommandInput {
  args: Record<string, string>;
  options: Record<string, string | undefined>;
}

export interface Command {
  /** `['accounts', 'create']`, or one word for a command without actions (`['migrate']`). */
  words: readonly string[];
  /** One line, for the list of commands. */
  summary: string;
  /** What it does, for its `--help` (the summary when absent). */
  description?: string;
  arguments: readonly ArgumentSpec[];
  options: Readonly<Record<string, OptionSpec>>;
  /** Command lines shown in `--help` (without the leading `tilecast`). */
  examples: readonly string[];
  run(input: CommandInput, database: Database): Promise<Outcome>;
}

export const defineCommand = (command: Command): Command => command;
