import { defineCommand } from '../command.js';

export const migrateCommand = defineCommand({
  words: ['migrate'],
  summary: "create or upgrade the schema's tables",
  description:
    'Creates the schema and its tables, or applies the migrations it lacks (what the reference server does at start). Safe to run again and from several places at once: one runs the migrations, the others find nothing left to do. Every other command needs a migrated schema.',
  arguments: [],
  options: {},
  examples: ['migrate', 'migrate --schema tilecast_staging'],
  async run(_input, database) {
    const { applied, version } = await database.migrate();
    const { schema } = database.settings;
    return {
      json: { schema, applied, version },
      text:
        applied.length === 0
          ? `Schema ${schema} is up to date (version ${version}).`
          : `Schema ${schema}: applied migration ${applied.join(', ')}; now at version ${version}.`,
    };
  },
});
