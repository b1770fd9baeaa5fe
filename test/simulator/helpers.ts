import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { startTestApp, type TestApp } from '../helpers/app';

/** A default-configuration app (the simulator and its catalog) listening on 127.0.0.1, and its base URL. */
export async function startListeningSimulator(): Promise<{ t: TestApp; baseURL: string; close: () => Promise<void> }> {
  const t = await startTestApp();
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  return {
    t,
    baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`,
    close: async () => {
      await t.app.stop(true);
      await t.close();
    },
  };
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

/** ajv's errors for `value` against a JSON Schema (empty when it validates). */
export function schemaErrors(schema: object, value: unknown): string[] {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** A tool parameter schema with the keywords a simulator must honour: required, enum, bounds, format, nesting. */
export const WEATHER_PARAMETERS = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2, description: 'City name' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    when: { type: 'object', properties: { date: { type: 'string', format: 'date' } }, required: ['date'], additionalProperties: false },
  },
  required: ['city', 'unit', 'days', 'when'],
  additionalProperties: false,
} as const;
