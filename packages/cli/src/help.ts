import type { Command } from './command.js';
import { EXIT } from './errors.js';
import { wrap } from './text.js';

/** Width of a paragraph of help text. */
const WIDTH = 96;

/** The options every command takes. */
export const GLOBAL_OPTIONS = {
  json: { value: undefined, help: 'print one JSON document on stdout instead of text' },
  schema: { value: '<name>', help: 'PostgreSQL schema of the tables (default: $TILECAST_DATABASE_SCHEMA, else tilecast)' },
  help: { value: undefined, help: 'show this help' },
} as const;

const ENVIRONMENT = `Environment:
  DATABASE_URL                      the deployment's PostgreSQL, postgres://user:password@host:port/database (required)
  TILECAST_DATABASE_SCHEMA          schema of the tables, as for the reference server (default tilecast)
  TILECAST_PG_CONNECT_TIMEOUT_MS    deadlines in milliseconds, as for the reference server (5000 each)
  TILECAST_PG_ACQUIRE_TIMEOUT_MS
  TILECAST_PG_STATEMENT_TIMEOUT_MS`;

const EXIT_CODES = `Exit codes:
  ${EXIT.ok}  done
  ${EXIT.failed}  the operation failed: no such account, widget or device, it already exists, or PostgreSQL refused it
  ${EXIT.usage}  usage or configuration error: unknown command or option, invalid argument, DATABASE_URL missing
     or not a PostgreSQL URL, schema not migrated
  ${EXIT.unavailable}  PostgreSQL unreachable or too slow: trying again later may work`;

const OUTPUT = `Output: text for people by default; with --json one JSON document on stdout. Errors are one line on
stderr, and nothing is printed on stdout. Tokens are printed once, by the command that creates them.`;

export function topHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => usageLine(c).length));
  return [
    'Usage: tilecast <command> [arguments] [options]',
    '',
    paragraph(
      "The admin command of a Tilecast deployment on PostgreSQL: it works on the deployment's database (DATABASE_URL) through the core's management API.",
    ),
    '',
    'Commands:',
    ...commands.map((c) => `  ${usageLine(c).padEnd(width)}  ${c.summary}`),
    '',
    optionLines(GLOBAL_OPTIONS, 'Options (every command):'),
    '',
    ENVIRONMENT,
    '',
    OUTPUT,
    '',
    EXIT_CODES,
    '',
    'Run `tilecast <command> --help` for the arguments, options and an example of a command.',
  ].join('\n');
}

/** The actions of a command group (`tilecast accounts --help`). */
export function groupHelp(group: string, commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => usageLine(c).length));
  return [
    `Usage: tilecast ${group} <${commands.map((c) => c.words[1]).join('|')}> [arguments] [options]`,
    '',
    ...commands.map((c) => `  ${usageLine(c).padEnd(width)}  ${c.summary}`),
    '',
    `Run \`tilecast ${group} <action> --help\` for details.`,
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const args = command.arguments.map((a) => [`<${a.name}>`, a.help] as const);
  const width = Math.max(24, ...args.map(([name]) => name.length + 2));
  return [
    `Usage: tilecast ${usageLine(command)}${Object.keys(command.options).length > 0 ? ' [options]' : ''} [--json] [--schema <name>]`,
    '',
    paragraph(command.description ?? `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.`),
    ...(args.length > 0 ? ['', 'Arguments:', ...args.map(([name, help]) => `  ${name.padEnd(width)}${help}`)] : []),
    '',
    optionLines({ ...command.options, ...GLOBAL_OPTIONS }, 'Options:'),
    '',
    'Example:',
    ...command.examples.map((example) => `  tilecast ${example}`),
  ].join('\n');
}

/** `accounts create <account>` (required options included). */
function usageLine(command: Command): string {
  const required = Object.entries(command.options)
    .filter(([, option]) => option.required)
    .map(([name, option]) => `--${name} ${option.value ?? ''}`.trimEnd());
  return [...command.words, ...command.arguments.map((a) => `<${a.name}>`), ...required].join(' ');
}

function optionLines(options: Record<string, { value?: string; help: string }>, title: string): string {
  const rows = Object.entries(options).map(([name, option]) => [
    `${name === 'help' ? '-h, ' : ''}--${name}${option.value ? ` ${option.value}` : ''}`,
    option.help,
  ]);
  const width = Math.max(24, ...rows.map(([flag]) => flag!.length + 2));
  return [title, ...rows.map(([flag, help]) => `  ${flag!.padEnd(width)}${help}`)].join('\n');
}

/** A paragraph of help text, in lines of at most {@link WIDTH} characters. */
function paragraph(text: string): string {
  return wrap(text, WIDTH).join('\n');
}
