import { Type, definePlugin, refuse, type ChatCompletion, type PluginContext } from '@svc/plugin-sdk';
import { assigned } from '../assign';
import { stagesTransformer } from '@svc/plugin-sdk';
import { recordOutcome } from '../shared/outcome';
import { compileRules, matchingRules, RuleError, type Rule, type RuleSpec } from './rules';
import { lookBehindFor, StreamChecker } from './stream';

const RuleSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Names the rule in refusals and the outcome' })),
    words: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), { description: 'Whole words (case, accents, width and look-alikes ignored)' }),
    ),
    phrases: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Word sequences, any whitespace between words' })),
    regex: Type.Optional(
      Type.String({
        description: 'A JavaScript regular expression, matched case-insensitively on normalised text; refused at start if it nests repeats',
      }),
    ),
    on: Type.Union([Type.Literal('input'), Type.Literal('output'), Type.Literal('both')], { default: 'both' }),
    action: Type.Union([Type.Literal('deny'), Type.Literal('flag')], { default: 'deny' }),
  },
  { additionalProperties: false },
);

interface Compiled {
  deny: Rule[];
  allow: Rule[];
  lookBehind: number;
}
// Compiled once per options object (the operator's, fixed at start).
const compiled = new WeakMap<object, Compiled>();
function rulesOf(options: { deny: RuleSpec[]; allow: RuleSpec[] }): Compiled {
  let c = compiled.get(options);
  if (!c) {
    const deny = compileRules(options.deny, 'deny');
    compiled.set(options, (c = { deny, allow: compileRules(options.allow, 'allow'), lookBehind: lookBehindFor(deny) }));
  }
  return c;
}

/** Refuses on a deny rule, records a flag rule. */
function act(ctx: PluginContext, rule: Rule, side: 'input' | 'output'): void {
  recordOutcome(ctx, rule.action, rule.action);
  if (rule.action === 'deny') throw refuse(`rule "${rule.name}" matched the ${side}`, { code: 'deny_list' });
}

/**
 * `deny_list`: words, phrases and regular expressions the input or the answer must not
 * contain (after Unicode normalisation), with allow rules as exceptions; the matched rule is
 * named in the refusal. Regexes that could backtrack catastrophically are refused at start.
 */
export const denyList = definePlugin({
  name: 'deny_list',
  options: {
    deny: Type.Array(RuleSchema, { default: [], description: 'Rules that deny (or flag) a request or an answer' }),
    allow: Type.Array(RuleSchema, { default: [], description: 'Exceptions: text they match is ignored by the deny rules' }),
  },
  validateOptions: function checkRules(options) {
    try {
      rulesOf(options);
      return null;
    } catch (e) {
      if (e instanceof RuleError) return e.message;
      throw e;
    }
  },
  isActive: (ctx) => assigned(ctx, 'deny_list') && ctx.options.deny.length > 0,
  transformRequest: function denyListInput(req, ctx) {
    const { deny, allow } = rulesOf(ctx.options);
    for (const m of req.messages) {
      const text =
        typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('\n') : '';
      for (const rule of matchingRules(text, 'input', deny, allow)) act(ctx, rule, 'input');
    }
    recordOutcome(ctx, 'pass');
  },
  transformResponse: function denyListOutput(body: ChatCompletion, ctx) {
    const { deny, allow } = rulesOf(ctx.options);
    for (const choice of body.choices)
      if (typeof choice.message.content === 'string')
        for (const rule of matchingRules(choice.message.content, 'output', deny, allow)) act(ctx, rule, 'output');
    return body;
  },
  transformStream: function denyListStream(ctx) {
    const { deny, allow, lookBehind } = rulesOf(ctx.options);
    const flagged = new Set<string>();
    return stagesTransformer(
      () =>
        new StreamChecker(
          (text) => matchingRules(text, 'output', deny, allow),
          (rule) => {
            if (rule.action === 'flag' && flagged.has(rule.name)) return;
            flagged.add(rule.name);
            act(ctx, rule, 'output');
          },
          lookBehind,
        ),
    );
  },
});
