import Ajv2020 from 'ajv/dist/2020';
import { STEP_TYPES, StepModule } from '../../temporal/steps';
import { TEST_REGISTRY } from '../fixtures/steps/registry';
import { configJsonSchema, describeStepType } from '../../services/stepTypes';
import { stepConfigSchema } from '../../services/workflowGraphs';

/**
 * A step type's JSON Schema (GET /workflows/step-types, what the dashboard's generated form follows)
 * must say what its zod schema (what the API validates with) says: valid configs and configs broken
 * in generated ways (a required field removed, an unknown field added, a field of the wrong type, an
 * enum value that is not one) get the same verdict from both. Refinements (unique branch names, a
 * duration's ceiling) have no JSON Schema form; the last test pins that they stay the API's.
 */

const UUID = '3f2b8c4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

/** Valid configs of every type of the test registry (the product's and the two fixtures'). */
const VALID: Record<string, Record<string, unknown>[]> = {
  TRIGGER: [{ eventName: 'signed_up' }],
  SEND_EMAIL: [
    { templateId: UUID },
    { templateId: UUID, topic: 'news' },
    { subject: 'Hi {{ name }}', body: '<p>Hello</p>', from: 'team@example.com', type: 'TRANSACTIONAL' },
  ],
  DELAY: [{ amount: 2, unit: 'days' }],
  WAIT_FOR_EVENT: [{ eventName: 'clicked' }, { eventName: 'clicked', timeout: { amount: 3, unit: 'hours' } }],
  CONDITION: [{ condition: { logic: 'AND', groups: [] } }],
  WEBHOOK: [{ url: 'https://hooks.example.com/in' }, { url: 'https://hooks.example.com/in', method: 'PUT', headers: { 'x-a': 'b' }, body: '{}' }],
  UPDATE_CONTACT: [{ data: { plan: 'pro' } }, { subscribed: false }],
  EXIT: [{}],
  RANDOM_SPLIT: [
    {
      branches: [
        { name: 'a', weight: 1 },
        { name: 'b', weight: 3 },
      ],
    },
  ],
  WAIT_UNTIL: [{ at: '09:30' }, { at: '18:00', days: ['mon', 'fri'] }, { field: 'data.renewsAt', offset: { amount: -2, unit: 'days' } }],
  WEIGHTED_SPLIT: [
    {
      branches: [
        { name: 'gold', weight: 1 },
        { name: 'grey', weight: 0 },
      ],
    },
  ],
  STAMP: [{ label: 'vip' }, { label: 'vip', templateId: UUID }],
};

type Json = Record<string, any>;

/** The object schemas a config may match (the variants of a union, or the one object). */
const variants = (schema: Json): Json[] => (schema.anyOf ?? schema.oneOf ?? [schema]) as Json[];

const wrongTypeValue = (prop: Json): unknown => {
  const type = prop.type ?? (prop.anyOf ? prop.anyOf[0].type : undefined);
  return type === 'string' ? 12345 : 'not of this type';
};

/** Configs broken one way each, generated from a valid one and the JSON Schema variant it matches. */
function broken(valid: Json, variant: Json): { why: string; config: Json }[] {
  const out: { why: string; config: Json }[] = [{ why: 'an unknown field', config: { ...valid, surplusField: 1 } }];
  for (const key of variant.required ?? []) {
    const { [key]: _gone, ...rest } = valid;
    out.push({ why: `without ${key}`, config: rest });
  }
  for (const [key, prop] of Object.entries<Json>(variant.properties ?? {})) {
    out.push({ why: `${key} of the wrong type`, config: { ...valid, [key]: wrongTypeValue(prop) } });
    if (prop.enum) out.push({ why: `${key} not one of ${prop.enum.join('|')}`, config: { ...valid, [key]: 'not-a-member' } });
  }
  return out;
}

// Formats are not validated here, so a `format` on a number-or-string (a time as epoch or ISO) is only
// an annotation: strictTypes would warn about it on every compile.
const ajv = new Ajv2020({ allErrors: true, validateFormats: false, strictTypes: false });
// `picker` is the dashboard's annotation (temporal/steps STEP_PICKERS), not a validation keyword.
ajv.addKeyword('picker');
const validatorOf = (def: StepModule) => ajv.compile(configJsonSchema(def));

describe('each step type: zod and its JSON Schema agree', () => {
  it('has sample configs for every registered type (a new type must add its own here)', () => {
    expect(TEST_REGISTRY.map((d) => d.type).sort()).toEqual(Object.keys(VALID).sort());
  });

  for (const def of TEST_REGISTRY) {
    it(`${def.type}: valid configs pass both, generated broken ones fail both`, () => {
      const validate = validatorOf(def);
      const zod = stepConfigSchema(def);
      let brokenCount = 0;
      for (const config of VALID[def.type]) {
        expect({ config, zod: zod.safeParse(config).success, json: validate(config), errors: validate.errors }).toMatchObject({ zod: true, json: true });
        const variant = variants(configJsonSchema(def)).find((v) => ajv.validate(v, config))!;
        for (const { why, config: bad } of broken(config, variant)) {
          const verdict = { why, bad, zod: zod.safeParse(bad).success, json: validate(bad) };
          // The same verdict; and since each case breaks a rule, both refuse it.
          expect(verdict).toMatchObject({ zod: false, json: false });
          brokenCount++;
        }
      }
      expect(brokenCount).toBeGreaterThan(0);
    });
  }

  it('marks the fields the dashboard has pickers for, from the registry', () => {
    const schema = (type: string) => configJsonSchema(STEP_TYPES.find((d) => d.type === type)!) as Json;
    expect(schema('SEND_EMAIL').anyOf[0].properties.templateId.format).toBe('template-id');
    expect(schema('WAIT_FOR_EVENT').properties.eventName.format).toBe('event-name');
    expect(schema('WAIT_FOR_EVENT').properties.timeout.format).toBe('duration');
    expect(schema('DELAY').format).toBe('duration');
    expect(schema('CONDITION').properties.condition.format).toBe('filter-tree');
    expect(schema('TRIGGER').properties.eventName.format).toBe('event-name');
    // A test step's template reference gets the picker too, from its `references` alone.
    expect((configJsonSchema(TEST_REGISTRY.find((d) => d.type === 'STAMP')!) as Json).properties.templateId.format).toBe('template-id');
  });

  it('says which branch lists are fixed and which derived from the config', () => {
    const d = (type: string) => describeStepType(TEST_REGISTRY.find((x) => x.type === type)!);
    expect(d('CONDITION')).toMatchObject({ branches: { derived: false, names: ['yes', 'no'] }, requiredBranches: { derived: false, names: [] } });
    expect(d('EXIT').branches).toEqual({ derived: false, names: [] });
    expect(d('WEIGHTED_SPLIT')).toMatchObject({ branches: { derived: true, names: [] }, requiredBranches: { derived: true } });
    expect(d('TRIGGER').internal).toBe(true);
  });

  it('leaves refinements to zod: they pass the JSON Schema and not the API', () => {
    const def = STEP_TYPES.find((d) => d.type === 'RANDOM_SPLIT')!;
    const twice = {
      branches: [
        { name: 'a', weight: 1 },
        { name: 'a', weight: 1 },
      ],
    };
    expect(validatorOf(def)(twice)).toBe(true);
    expect(stepConfigSchema(def).safeParse(twice).success).toBe(false);
    // And an UPDATE_CONTACT that changes nothing.
    const update = STEP_TYPES.find((d) => d.type === 'UPDATE_CONTACT')!;
    expect(validatorOf(update)({})).toBe(true);
    expect(stepConfigSchema(update).safeParse({}).success).toBe(false);
  });
});
