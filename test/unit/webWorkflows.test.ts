import { ApiError } from '../../web/src/api/client';
import {
  configErrors,
  initialValue,
  singular,
  stepProblems,
  temporalExecutionUrl,
  variantIndex,
  variantLabel,
  type JsonSchema,
} from '../../web/src/api/workflows';
import { describeStepTypes } from '../../services/stepTypes';
import { executionWorkflowId } from '../../temporal/workflowIds';

/** The workflow editor's own logic (web/src/api/workflows.ts), on the JSON Schemas the server really sends. */

const schemaOf = (type: string) => describeStepTypes().find((t) => t.type === type)!.configSchema as JsonSchema;

describe('the editor and the enabling 422', () => {
  it("groups the 422's step errors by the step they name, each field relative to it", () => {
    const err = new ApiError(422, 'The workflow cannot run', 'VALIDATION_ERROR', {
      'steps.s1.branches.next': 'step "Trigger" (TRIGGER): branches.next: the trigger is not connected to a first step',
      'steps.s2.config.templateId': 'step "Say "hi"" (SEND_EMAIL): config.templateId: template not found in this project',
      name: 'not a step',
    });
    expect(stepProblems(err)).toEqual({
      s1: [{ field: 'branches.next', message: 'the trigger is not connected to a first step' }],
      s2: [{ field: 'config.templateId', message: 'template not found in this project' }],
    });
    expect(stepProblems(new Error('network'))).toEqual({});
  });

  it("maps a step save's config errors onto config paths", () => {
    const err = new ApiError(422, 'bad', 'VALIDATION_ERROR', {
      'config.branches.0.name': 'Invalid string',
      config: 'give data or subscribed',
      name: 'name is required',
    });
    expect(configErrors(err)).toEqual({ 'branches.0.name': 'Invalid string', '': 'give data or subscribed' });
  });
});

describe('generated forms', () => {
  it('starts a config from what the schema requires', () => {
    expect(initialValue(schemaOf('RANDOM_SPLIT'))).toEqual({
      branches: [
        { name: '', weight: 1 },
        { name: '', weight: 1 },
      ],
    });
    expect(initialValue(schemaOf('DELAY'))).toEqual({ amount: 1, unit: 'minutes' });
    expect(initialValue(schemaOf('WEBHOOK'))).toEqual({ url: '' });
    expect(initialValue(schemaOf('EXIT'))).toEqual({});
  });

  it("names a union's forms by the fields only they require, and finds the form a config is in", () => {
    const send = schemaOf('SEND_EMAIL');
    expect([variantLabel(send, 0), variantLabel(send, 1)]).toEqual(['With template id', 'With subject, body, from']);
    expect(variantIndex(send, { subject: 's', body: 'b', from: 'a@b.co' })).toBe(1);
    expect(variantIndex(send, { templateId: 'x' })).toBe(0);
  });

  it('names one item of a list', () => {
    expect(['Branches', 'Days', 'Boxes', 'Headers'].map(singular)).toEqual(['Branch', 'Day', 'Box', 'Header']);
  });

  it('links an execution to the Temporal UI page of its workflow id', () => {
    expect(temporalExecutionUrl('http://localhost:8233/', 'default', 'e1')).toBe(
      `http://localhost:8233/namespaces/default/workflows/${executionWorkflowId('e1')}`,
    );
  });
});
