import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderScenarioJsonSchema, SCHEMA_PATH } from '../../src/scenario/genSchema.js';

describe('docs/scenario.schema.json', () => {
  it('equals a fresh generation (run `npm run schema` after changing src/scenario/schema.ts)', () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(renderScenarioJsonSchema());
  });

  it('is draft-7 and requires exactly one action per timeline entry', () => {
    const schema = JSON.parse(renderScenarioJsonSchema()) as {
      $schema: string;
      required: string[];
      properties: { timeline: { items: { oneOf: Array<{ required: string[] }> } } };
    };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.required).toEqual(['name', 'cluster', 'timeline']);
    expect(schema.properties.timeline.items.oneOf.map((o) => o.required[0])).toEqual([
      'createPod',
      'deletePod',
      'forceDeletePod',
      'evictPod',
      'restartKubelet',
      'shutdownNode',
      'crashContainer',
      'deletePvc',
      'outOfServiceTaint',
      'fault',
    ]);
  });
});
