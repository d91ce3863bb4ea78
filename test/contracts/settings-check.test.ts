import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseConfigFile } from '../../bin/config-source';
import { parseConfig } from '../../contracts/config';
import { REFINEMENTS, isCompleteSettings } from '../../contracts/settings-check';
import { FUNCTION_SETTINGS_JSON_SCHEMA } from '../../contracts/settings-schema.generated';
import { functionSettingsOf, functionSettingsSchema } from '../../contracts/settings';
import { SETTINGS_SCHEMA_MODULE, settingsSchemaModule } from '../../scripts/settings-schema';
import { ROOT } from '../helpers';

/** The settings document the stack writes for `config`. */
const written = (config: unknown): unknown =>
  JSON.parse(JSON.stringify(functionSettingsOf(parseConfig(config, 'test'))));

const prod = { name: 'prod', logGroups: ['/aws/containerinsights/prod/application'] };
const example = JSON.parse(
  JSON.stringify(
    functionSettingsOf(
      parseConfigFile(readFileSync(join(ROOT, 'config', 'karpenter-doctor.example.jsonc'), 'utf8'), 'example'),
    ),
  ),
) as Record<string, unknown>;

describe('the settings fast check', () => {
  it('is generated from the settings schema as it stands (npm run generate)', () => {
    expect(readFileSync(join(ROOT, SETTINGS_SCHEMA_MODULE), 'utf8')).toBe(settingsSchemaModule());
  });

  it('has a check for every refinement of the schema, and none for a refinement it no longer has', () => {
    const refined: string[] = [];
    const visit = (node: object): void => {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'refinement') refined.push(value as string);
        else if (key === 'properties') Object.values(value as object).forEach(visit);
        else if (key === 'items') visit(value as object);
      }
    };
    visit(FUNCTION_SETTINGS_JSON_SCHEMA);
    expect(refined.sort()).toEqual(Object.keys(REFINEMENTS).sort());
  });

  it.each([
    ['the example configuration', example],
    ['one cluster, every default', written({ clusters: [prod] })],
    [
      'clusters in accounts, with tags, groups and filter patterns',
      written({
        clusters: [
          { ...prod, account: '444455556666', filterPattern: '?ERROR ?Warning', systemNodegroup: 'system' },
          { ...prod, discoveryTag: { key: 'example.com/karpenter', value: 'x' }, systemAutoScalingGroup: 'asg-1' },
        ],
        remediation: { requestQuotaIncrease: { mode: 'dry-run', maxValue: 256 } },
      }),
    ],
  ])('accepts what the stack writes: %s', (_, document) => {
    expect(isCompleteSettings(document)).toBe(true);
  });

  it.each([
    [
      'a default left out',
      (d: Record<string, unknown>) => delete (d.windows as Record<string, unknown>).resolveMinutes,
    ],
    ['an unknown key', (d: Record<string, unknown>) => (d.extra = 1)],
    [
      'a cluster named twice in one account',
      (d: Record<string, unknown>) => (d.clusters = [...(d.clusters as object[]), (d.clusters as object[])[0]]),
    ],
    [
      'a filter pattern CloudWatch Logs would refuse',
      (d: Record<string, unknown>) => ((d.clusters as Array<Record<string, unknown>>)[0]!.filterPattern = '"open'),
    ],
    [
      'an integer that is not one',
      (d: Record<string, unknown>) => ((d.headroom as Record<string, unknown>).minFreeIps = 1.5),
    ],
    [
      'a number out of range',
      (d: Record<string, unknown>) => ((d.notifications as Record<string, unknown>).maxNoticesPerDelivery = 21),
    ],
    [
      'a value not in an enum',
      (d: Record<string, unknown>) =>
        ((d.remediation as Record<string, Record<string, unknown>>).planSubnetCapacity!.mode = 'apply'),
    ],
    [
      'a pattern not matched',
      (d: Record<string, unknown>) => ((d.clusters as Array<Record<string, unknown>>)[0]!.account = '1234'),
    ],
  ])('leaves to the zod schema a document with %s', (_, mutate) => {
    const document = structuredClone(example);
    mutate(document);
    expect(isCompleteSettings(document)).toBe(false);
  });

  it('accepts only documents the zod schema accepts and returns unchanged', () => {
    // Random edits of a valid document: a value replaced by any JSON value, or a key removed or added.
    const paths: Array<Array<string | number>> = [];
    const collect = (value: unknown, path: Array<string | number>): void => {
      paths.push(path);
      if (Array.isArray(value)) value.forEach((item, index) => collect(item, [...path, index]));
      else if (typeof value === 'object' && value !== null)
        for (const [key, item] of Object.entries(value)) collect(item, [...path, key]);
    };
    collect(example, []);
    const edit = fc.record({
      path: fc.constantFrom(...paths.filter((path) => path.length > 0)),
      action: fc.oneof(
        fc.record({ kind: fc.constant('set' as const), value: fc.jsonValue() }),
        fc.record({ kind: fc.constant('delete' as const) }),
        fc.record({ kind: fc.constant('add' as const), key: fc.string({ maxLength: 8 }), value: fc.jsonValue() }),
      ),
    });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        const document = structuredClone(example) as Record<string | number, unknown>;
        for (const { path, action } of edits) {
          let parent: Record<string | number, unknown> = document;
          for (const step of path.slice(0, -1)) {
            const next = parent[step];
            if (typeof next !== 'object' || next === null) return;
            parent = next as Record<string | number, unknown>;
          }
          const last = path[path.length - 1]!;
          if (action.kind === 'set') parent[last] = action.value;
          else if (action.kind === 'delete') delete parent[last];
          // JSON gives no array a key of its own: keys are added to objects only.
          else if (typeof parent[last] === 'object' && parent[last] !== null && !Array.isArray(parent[last]))
            (parent[last] as Record<string, unknown>)[action.key] = action.value;
        }
        if (!isCompleteSettings(document)) return;
        const parsed = functionSettingsSchema.safeParse(document);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(document);
      }),
      { numRuns: 2000 },
    );
  });
});
