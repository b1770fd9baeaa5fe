import { describe, expect, test } from 'bun:test';
import { requestedSchema, schemaViolation } from './validate';

const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};

describe('output schema', () => {
  test('the requested schema is read from response_format', () => {
    const req = (extra: Record<string, unknown>) => ({ model: 'm', messages: [], ...extra });
    expect(requestedSchema(req({ response_format: { type: 'json_schema', json_schema: { name: 'p', schema } } }))).toEqual(schema);
    expect(requestedSchema(req({ response_format: { type: 'json_object' } }))).toBeNull();
    expect(requestedSchema(req({}))).toBeNull();
  });

  test.each([
    ['{"name":"Ann","age":3}', null],
    ['{"name":"Ann","age":"3"}', 'the answer does not match the requested json_schema: /age must be integer'],
    ['{"name":"Ann"}', "the answer does not match the requested json_schema: / must have required property 'age'"],
    ['{"name":"Ann","age":3,"x":1}', 'the answer does not match the requested json_schema: / must NOT have additional properties'],
    ['{"name": "Ann", ', 'the answer is not valid JSON'],
  ])('%j', (text, reason) => {
    const got = schemaViolation(text, schema);
    if (reason === null) expect(got).toBeNull();
    else expect(got).toStartWith(reason);
  });

  test('a schema that does not compile is reported, not thrown', () => {
    expect(schemaViolation('{}', { type: 'no-such-type' })).toStartWith('the json_schema does not compile');
  });
});
