import { mkdirSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { Command } from '../src/domain/commands.js';
import { DomainEvent } from '../src/domain/events.js';
import { projectionSchemas } from '../src/domain/projections.js';
import { Receipt } from '../src/domain/receipts.js';
import { ProviderCapabilities } from '../src/domain/capabilities.js';

/** `npm run schema`: writes JSON Schema for every contract, generated from the zod schemas. */
const outDir = new URL('../schema/', import.meta.url);
mkdirSync(outDir, { recursive: true });

const documents: Record<string, z.ZodType> = {
  'commands.json': Command,
  'events.json': DomainEvent,
  'receipts.json': Receipt,
  'capabilities.json': ProviderCapabilities,
  'projections.json': z.object(projectionSchemas),
};

for (const [file, schema] of Object.entries(documents)) {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any' });
  writeFileSync(new URL(file, outDir), `${JSON.stringify(json, null, 2)}\n`);
  console.log(`wrote schema/${file}`);
}
