/** A whole-number setting of the fuzz and property tests, from the environment (seeds, runs, deadlines). */
export function integerSetting(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`${name} must be an integer, got ${JSON.stringify(value)}`);
  return parsed;
}
