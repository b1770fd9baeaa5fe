import { Type, definePlugin, refuse, type ChatCompletion, type ChatRequest, type PluginContext } from '@svc/plugin-sdk';
import type { CountryCode } from 'libphonenumber-js/max';
import { assigned } from '../assign';
import { stagesTransformer } from '@svc/plugin-sdk';
import { recordOutcome } from '../shared/outcome';
import { chainStages, type TextStage } from '@svc/plugin-sdk';
import { PII_CLASSES, type PiiClass } from './detect';
import { Redactor, restorePlaceholders } from './redact';
import { StreamRedactor, StreamRestorer } from './stream';
import { jsonEscaped, mapArgumentStrings } from './json-strings';

const ClassSwitch = (cls: string) => Type.Boolean({ default: true, description: `Look for ${cls}` });
const Action = Type.Union([Type.Literal('redact'), Type.Literal('deny'), Type.Literal('flag')], { default: 'redact' });

const DESCRIBE: Record<PiiClass, string> = {
  email: 'an e-mail address',
  phone: 'a phone number',
  card: 'a payment card number',
  iban: 'an IBAN',
  ip: 'an IP address',
  secret: 'a secret (API key or private key)',
};

type Ctx = PluginContext<
  { pii_restore?: boolean },
  { action: 'redact' | 'deny' | 'flag'; restore: boolean; input: boolean; output: boolean }
>;

// One redactor per request, shared by the request and the response side (keyed by the request's params object).
const redactors = new WeakMap<object, Redactor>();
function redactorOf(ctx: PluginContext, options: { classes: Record<PiiClass, boolean>; phone_region: string }): Redactor {
  let r = redactors.get(ctx.params);
  if (!r) {
    const classes = new Set(PII_CLASSES.filter((c) => options.classes[c]));
    redactors.set(ctx.params, (r = new Redactor(classes, { phoneRegion: options.phone_region as CountryCode })));
  }
  return r;
}

type ToolCall = { function?: { arguments?: unknown } };

/** Runs `fn` over the string values of each tool call's arguments (`tool_calls[].function.arguments`), replacing them. */
function eachToolArgument(calls: unknown, fn: (text: string) => string): void {
  if (!Array.isArray(calls)) return;
  for (const call of calls as ToolCall[])
    if (typeof call?.function?.arguments === 'string') call.function.arguments = mapArgumentStrings(call.function.arguments, fn);
}

/**
 * Runs `fn` over every text in the request's messages, replacing it: string content and text
 * parts (a `tool` message's result included) and the assistant messages' tool-call arguments.
 */
function eachText(req: ChatRequest, fn: (text: string) => string): void {
  for (const m of req.messages) {
    // A tool's result is often JSON: its strings are redacted so it stays JSON.
    if (typeof m.content === 'string') m.content = m.role === 'tool' ? mapArgumentStrings(m.content, fn) : fn(m.content);
    else if (Array.isArray(m.content))
      for (const part of m.content) if (part.type === 'text' && typeof part.text === 'string') part.text = fn(part.text);
    eachToolArgument(m.tool_calls, fn);
  }
}

/** Denies or flags on the first value found (deny/flag actions). */
function actOnFound(ctx: Ctx, side: 'input' | 'output', cls: PiiClass): void {
  if (ctx.options.action === 'deny') {
    recordOutcome(ctx, 'deny', cls);
    throw refuse(`the ${side} contains ${DESCRIBE[cls]} (class ${cls})`, { code: 'pii' });
  }
  recordOutcome(ctx, 'flag', cls);
}

const restoring = (ctx: Ctx) => ctx.options.restore || ctx.params.pii_restore === true;

/** One text of a JSON answer (content or reasoning): redacted, denied or flagged, then restored if asked. */
function answerText(text: string, r: Redactor, known: ReadonlyMap<string, string>, ctx: Ctx): string {
  if (ctx.options.output) {
    if (ctx.options.action === 'redact') {
      const redacted = r.redact(text);
      if (redacted !== text) recordOutcome(ctx, 'redact', 'output');
      text = redacted;
    } else {
      const first = r.find(text)[0];
      if (first) actOnFound(ctx, 'output', first.cls);
    }
  }
  return restoring(ctx) ? restorePlaceholders(text, known) : text;
}

/**
 * `pii`: finds e-mail addresses, phone numbers, payment cards, IBANs, IP addresses and
 * secrets in the input and the answer, and redacts them (typed placeholders, the same value
 * the same placeholder; optionally restored in the answer), denies or flags the request.
 */
export const pii = definePlugin({
  name: 'pii',
  parameters: {
    pii_restore: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'With the pii guardrail: put the values it redacted from the input back into the answer',
      }),
    ),
  },
  options: {
    action: Action,
    input: Type.Boolean({ default: true, description: 'Check the messages sent upstream' }),
    output: Type.Boolean({ default: true, description: 'Check the answer' }),
    restore: Type.Boolean({ default: false, description: 'Always put redacted input values back into the answer' }),
    phone_region: Type.String({
      default: 'US',
      minLength: 2,
      maxLength: 2,
      description: 'Region of phone numbers written without +country code',
    }),
    classes: Type.Object(
      {
        email: ClassSwitch('e-mail addresses'),
        phone: ClassSwitch('phone numbers'),
        card: ClassSwitch('payment card numbers (Luhn-checked)'),
        iban: ClassSwitch('IBANs (mod-97-checked)'),
        ip: ClassSwitch('IPv4 and IPv6 addresses'),
        secret: ClassSwitch('API keys and private keys'),
      },
      { default: {} },
    ),
  },
  isActive: (ctx) => assigned(ctx, 'pii'),
  transformRequest: function piiInput(req, ctx) {
    if (!ctx.options.input) return recordOutcome(ctx, 'pass');
    const r = redactorOf(ctx, ctx.options);
    if (ctx.options.action === 'redact') {
      eachText(req, (t) => r.redact(t));
      for (const cls of r.seen.keys()) recordOutcome(ctx, 'redact', cls);
    } else
      eachText(req, (t) => {
        const first = r.find(t)[0];
        if (first) actOnFound(ctx, 'input', first.cls);
        return t;
      });
    if (r.seen.size === 0) recordOutcome(ctx, 'pass');
  },
  transformResponse: function piiOutput(body: ChatCompletion, ctx) {
    const r = redactorOf(ctx, ctx.options);
    const known = r.snapshot();
    for (const choice of body.choices) {
      const reasoning = choice.message.reasoning_content;
      if (typeof reasoning === 'string') choice.message.reasoning_content = answerText(reasoning, r, known, ctx);
      if (typeof choice.message.content === 'string') choice.message.content = answerText(choice.message.content, r, known, ctx);
      eachToolArgument(choice.message.tool_calls, (t) => answerText(t, r, known, ctx));
    }
    return body;
  },
  transformStream: function piiStream(ctx) {
    const r = redactorOf(ctx, ctx.options);
    const known = r.snapshot();
    const restore = restoring(ctx);
    // Streamed arguments are raw JSON text: a restored value goes in escaped for a JSON string.
    const inArguments = restore ? jsonEscaped(known) : known;
    return stagesTransformer(
      (field) => {
        const stages: TextStage[] = [];
        if (ctx.options.output)
          stages.push(
            ctx.options.action === 'redact'
              ? new StreamRedactor(r, undefined, () => recordOutcome(ctx, 'redact', 'output'))
              : new StreamRedactor(r, (cls) => actOnFound(ctx, 'output', cls)),
          );
        if (restore) stages.push(new StreamRestorer(field === 'tool_arguments' ? inArguments : known));
        return chainStages(stages);
      },
      ['content', 'reasoning_content', 'tool_arguments'],
    );
  },
});
