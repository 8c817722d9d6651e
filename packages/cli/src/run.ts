import { parseArgs } from 'node:util';
import type { Command, CommandInput } from './command.js';
import { COMMANDS } from './commands/index.js';
import { openDatabase } from './database.js';
import { EXIT, type ExitCode, reportOf, usageError } from './errors.js';
import { commandHelp, groupHelp, topHelp } from './help.js';
import { readDatabaseSettings } from './settings.js';

/** Where the CLI writes: one call per document or line. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const GLOBAL_PARSE_OPTIONS = {
  json: { type: 'boolean' },
  schema: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Runs one command line (without `node` and the script) and answers its exit code. The
 * command words come first among the positionals (`accounts create acme`); the options
 * may stand anywhere. Help and usage errors never touch the database.
 */
export async function run(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<ExitCode> {
  // First pass: only the command words and --help; the command's own options are checked once it is known.
  const first = parseArgs({ args: [...argv], options: GLOBAL_PARSE_OPTIONS, strict: false, allowPositionals: true });
  const words = first.positionals[0] === 'help' ? first.positionals.slice(1) : first.positionals;
  const wantsHelp = first.values.help === true || first.positionals[0] === 'help';
  const usage = (message: string): ExitCode => {
    io.err(`tilecast: ${message}`);
    return EXIT.usage;
  };

  if (words.length === 0) {
    if (!wantsHelp) return usage('no command given; `tilecast --help` lists them');
    io.out(topHelp(COMMANDS));
    return EXIT.ok;
  }
  const group = COMMANDS.filter((command) => command.words[0] === words[0]);
  if (group.length === 0) return usage(`unknown command "${words[0]}"; \`tilecast --help\` lists the commands`);
  const single = group.length === 1 && group[0]!.words.length === 1 ? group[0] : undefined;
  const command = single ?? group.find((c) => c.words[1] === words[1]);
  if (command === undefined) {
    if (words.length === 1 && wantsHelp) {
      io.out(groupHelp(words[0]!, group));
      return EXIT.ok;
    }
    const actions = group.map((c) => c.words[1]).join(', ');
    return usage(words.length === 1 ? `"${words[0]}" needs an action: ${actions}` : `unknown action "${words[1]}" of "${words[0]}": use ${actions}`);
  }
  if (wantsHelp) {
    io.out(commandHelp(command));
    return EXIT.ok;
  }
  return execute(command, argv, env, io);
}

async function execute(command: Command, argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<ExitCode> {
  const name = command.words.join(' ');
  let where = 'DATABASE_URL';
  try {
    const { input, json, schema } = parseInput(command, argv);
    const settings = readDatabaseSettings(env, schema);
    where = settings.where;
    const database = openDatabase(settings);
    try {
      const outcome = await command.run(input, database);
      io.out(json ? JSON.stringify(outcome.json, null, 2) : outcome.text);
      return EXIT.ok;
    } finally {
      await database.close().catch(() => {});
    }
  } catch (error) {
    const { message, exitCode } = reportOf(error, where);
    io.err(`tilecast ${name}: ${message.replace(/\s*\n\s*/g, '; ')}`);
    return exitCode;
  }
}

/** The second pass: the whole line against the command's spec, strictly. */
function parseInput(command: Command, argv: readonly string[]): { input: CommandInput; json: boolean; schema: string | undefined } {
  const see = `see \`tilecast ${command.words.join(' ')} --help\``;
  const own = Object.fromEntries(Object.entries(command.options).map(([name, option]) => [name, { type: option.value ? 'string' : 'boolean' } as const]));
  let parsed: ReturnType<typeof parseStrict>;
  try {
    parsed = parseStrict(argv, { ...own, ...GLOBAL_PARSE_OPTIONS });
  } catch (error) {
    throw usageError(`${describeParseError(error)} (${see})`);
  }
  const positionals = parsed.positionals.slice(command.words.length);
  const missing = command.arguments.slice(positionals.length).map((a) => `<${a.name}>`);
  if (missing.length > 0) throw usageError(`missing ${missing.join(' ')} (${see})`);
  if (positionals.length > command.arguments.length) throw usageError(`unexpected argument "${positionals[command.arguments.length]}" (${see})`);

  const args: Record<string, string> = {};
  command.arguments.forEach((spec, i) => {
    const value = positionals[i]!;
    if (spec.choices && !spec.choices.includes(value)) throw usageError(`<${spec.name}> must be one of ${spec.choices.join(', ')}, got "${value}"`);
    args[spec.name] = value;
  });
  const options: Record<string, string | undefined> = {};
  for (const [name, spec] of Object.entries(command.options)) {
    const value = parsed.values[name];
    if (value === undefined) {
      if (spec.required) throw usageError(`--${name} is required (${see})`);
      continue;
    }
    const text = String(value);
    if (spec.choices && !spec.choices.includes(text)) throw usageError(`--${name} must be one of ${spec.choices.join(', ')}, got "${text}"`);
    options[name] = text;
  }
  const schema = parsed.values.schema;
  return { input: { args, options }, json: parsed.values.json === true, schema: typeof schema === 'string' ? schema : undefined };
}

const parseStrict = (argv: readonly string[], options: Record<string, { type: 'string' | 'boolean'; short?: string }>) =>
  parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });

/** `node:util` explains its refusals at length: the option and the fault are enough. */
function describeParseError(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const option = /'(-[^' ]*)/.exec(message ?? '')?.[1] ?? 'an option';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return /^-\d/.test(option) ? `${option}: negative numbers are not accepted` : `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return /does not take/.test(message ?? '') ? `${option} takes no value` : `${option} needs a value`;
  return String(message ?? error);
}
