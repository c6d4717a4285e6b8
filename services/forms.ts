import type { Knex } from 'knex';
import { DomainError } from '../lib/domainErrors';
import { DATA_TYPE_OF, type FormField } from '../lib/formFields';
import { registeredFields } from '../db/fields';
import { resolveTopicKeys } from '../db/topics';
import { doubleOptInSettings } from '../db/doubleOptIn';
import type { FormInput } from '../db/forms';

/**
 * The rules a form's settings meet beyond their shape (docs/forms.md): its topics exist, each field
 * stores the type its key already holds in the project (db/fields.ts registry), and asking for
 * double opt-in needs the project's settings for it. A broken rule is a 422 naming the field.
 */
export async function checkFormInput(db: Knex, projectId: string, input: Partial<FormInput>): Promise<void> {
  if (input.topics?.length) await resolveTopicKeys(db, projectId, input.topics, (slug) => `topics.${input.topics!.indexOf(slug)}`);
  if (input.fields?.length) await checkFieldTypes(db, projectId, input.fields);
  if (input.doubleOptIn === true && !(await doubleOptInSettings(db, projectId))) {
    throw new DomainError('invalid', "doubleOptIn needs the project's doubleOptIn settings (PATCH /settings)", 'doubleOptIn');
  }
}

async function checkFieldTypes(db: Knex, projectId: string, fields: readonly FormField[]): Promise<void> {
  const registered = new Map((await registeredFields(db, projectId)).map((f) => [f.key, f.type]));
  fields.forEach((f, i) => {
    const held = registered.get(f.key);
    if (held && held !== DATA_TYPE_OF[f.type]) {
      throw new DomainError(
        'invalid',
        `data.${f.key} holds ${held} values in this project; a ${f.type} field would store ${DATA_TYPE_OF[f.type]}`,
        `fields.${i}.type`,
      );
    }
  });
}
