import { normalizeForMatch } from './normalize';
import { regexRefusal } from './safety';

/** Where a rule looks: the request's messages, the answer, or both. */
export type RuleSide = 'input' | 'output' | 'both';

/** A rule as the operator writes it: words, phrases and/or one regular expression. */
export interface RuleSpec {
  name?: string;
  words?: string[];
  phrases?: string[];
  regex?: string;
  on?: RuleSide;
  action?: 'deny' | 'flag';
}

/** A compiled rule: one case-insensitive pattern over normalised text. */
export interface Rule {
  name: string;
  on: RuleSide;
  action: 'deny' | 'flag';
  pattern: RegExp;
  /** Longest text it can match, or Infinity (regexes): how much look-behind a stream keeps for it. */
  reach: number;
}

/** A list the operator wrote that cannot run: which rule and why. */
export class RuleError extends Error {
  override name = 'RuleError';
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Whole words: no letter or digit on either side, in any script.
const wordsPattern = (items: string[]) =>
  `(?<![\\p{L}\\p{N}])(?:${items.map((w) => escape(normalizeForMatch(w).trim()).replace(/\s+/g, '\\s+')).join('|')})(?![\\p{L}\\p{N}])`;

/** Compiles the operator's rules, or throws a RuleError naming the rule and the reason (checked at start). */
export function compileRules(specs: readonly RuleSpec[], kind: 'deny' | 'allow'): Rule[] {
  return specs.map((spec, i) => {
    const name = spec.name ?? `${kind}[${i}]`;
    const parts: string[] = [];
    const items = [...(spec.words ?? []), ...(spec.phrases ?? [])].filter((w) => w.trim() !== '');
    if (items.length) parts.push(wordsPattern(items));
    if (spec.regex !== undefined) {
      const why = regexRefusal(spec.regex);
      if (why) throw new RuleError(`rule ${name}: regex refused: ${why}`);
      parts.push(`(?:${spec.regex})`);
    }
    if (!parts.length) throw new RuleError(`rule ${name}: has no words, phrases or regex`);
    const reach = spec.regex !== undefined ? Infinity : Math.max(...items.map((w) => w.length));
    return { name, on: spec.on ?? 'both', action: spec.action ?? 'deny', pattern: new RegExp(parts.join('|'), 'iu'), reach };
  });
}

/** The rules that match `text` on this side, after the allow rules' matches are blanked out; deny actions first. */
export function matchingRules(text: string, side: 'input' | 'output', deny: readonly Rule[], allow: readonly Rule[]): Rule[] {
  let s = normalizeForMatch(text);
  for (const a of allow) if (a.on === side || a.on === 'both') s = s.replace(new RegExp(a.pattern.source, 'giu'), ' ');
  const out = deny.filter((r) => (r.on === side || r.on === 'both') && r.pattern.test(s));
  return out.sort((a, b) => (a.action === b.action ? 0 : a.action === 'deny' ? -1 : 1));
}
