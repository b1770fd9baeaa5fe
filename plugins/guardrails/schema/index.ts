import { Type, definePlugin, refuse, type ChatCompletion } from '@svc/plugin-sdk';
import { assigned } from '../assign';
import { recordOutcome } from '../shared/outcome';
import type { TextStage } from '@svc/plugin-sdk';
import { stagesTransformer } from '@svc/plugin-sdk';
import { requestedSchema, schemaViolation } from './validate';

/** Most characters of a streamed answer kept for the check at its end. */
const MAX_STREAMED = 4 * 1024 * 1024;

// The schema each request asked for, read on the request side (keyed by the request's params object).
const schemas = new WeakMap<object, Record<string, unknown>>();
// The requests whose first answer failed and were sent upstream again (keyed the same way).
const retried = new WeakSet<object>();

/** Collects a choice's text, passing it on untouched, and checks it at the end. */
function collecting(check: (text: string) => void): TextStage {
  let text = '';
  return {
    push(piece) {
      if (text.length < MAX_STREAMED) text += piece;
      return piece;
    },
    end() {
      check(text);
      return '';
    },
  };
}

/**
 * `output_schema`: when a request asks for `response_format: json_schema`, checks that the
 * answer is JSON that fits the schema (Ajv). A JSON answer that does not is withheld (an
 * error naming the violation, 502) or, when the operator allows it, asked for once more
 * upstream (both calls charged, `x-svc-upstream-calls: 2` and `output_schema=retry` tell the
 * client). A stream is checked at its end and reported in-band: it cannot be asked again.
 */
export const outputSchema = definePlugin({
  name: 'output_schema',
  options: {
    retry: Type.Boolean({
      default: false,
      description: 'Ask the upstream once more when a JSON answer does not fit its json_schema (both calls are charged)',
    }),
  },
  isActive: (ctx) => assigned(ctx, 'output_schema'),
  transformRequest: function readSchema(req, ctx) {
    const schema = requestedSchema(req);
    if (schema) schemas.set(ctx.params, schema);
    else recordOutcome(ctx, 'pass');
  },
  transformResponse: function checkAnswer(body: ChatCompletion, ctx) {
    const schema = schemas.get(ctx.params);
    if (!schema) return body;
    for (const choice of body.choices) {
      if (choice.finish_reason !== 'stop' && choice.finish_reason !== null) continue;
      const why = schemaViolation(choice.message.content ?? '', schema);
      if (!why) continue;
      // The upstream answered, but not what the request asked for: a bad gateway.
      if (ctx.options.retry && !retried.has(ctx.params)) {
        retried.add(ctx.params);
        recordOutcome(ctx, 'retry', 'invalid');
        ctx.echo.output_schema_retry = { reason: why, upstream_calls: 2 };
        throw refuse(why, { status: 502, code: 'output_schema', retry: true });
      }
      recordOutcome(ctx, 'deny', 'invalid');
      throw refuse(why, { status: 502, code: 'output_schema' });
    }
    recordOutcome(ctx, 'pass');
    return body;
  },
  transformStream: function checkStreamedAnswer(ctx) {
    const schema = schemas.get(ctx.params);
    return stagesTransformer(() =>
      collecting((text) => {
        const why = schema ? schemaViolation(text, schema) : null;
        if (!why) return;
        recordOutcome(ctx, 'deny', 'invalid');
        throw refuse(why, { code: 'output_schema' });
      }),
    );
  },
});
