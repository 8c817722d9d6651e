import { readFile } from 'node:fs/promises';
import { ConfigError } from './config.js';

/**
 * Reads a file a setting names (a key, a CA, a credentials file) at start: a file that
 * cannot be read is a configuration problem (exit code 2), named by its setting.
 */
export async function readSettingFile(name: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read ${name} (${path}): ${error instanceof Error ? error.message : String(error)}`]);
  }
}
