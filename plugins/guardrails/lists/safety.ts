import { RegExpParser, visitRegExpAST, type AST } from '@eslint-community/regexpp';
import { overlappingAlternatives } from './overlap';

/** Longest operator pattern accepted, in characters. */
export const MAX_PATTERN = 1000;
/** Nested bounded repeats are allowed up to this many combinations (`(\d{1,3}\.){3}` is 9). */
const MAX_NESTED_PRODUCT = 100;

const parser = new RegExpParser({ ecmaVersion: 2025 });

/** Repeats above this many (or unbounded) make overlapping alternatives dangerous; `(a|aa){2}` is not. */
const MAX_ALTERNATION_REPEAT = 10;

/** A repeat that can run more than once. */
const repeats = (q: AST.Quantifier) => q.max >= 2;

/** The first quantifier nested (at any depth) under `outer` that makes the pair dangerous. */
function dangerousInner(outer: AST.Quantifier): AST.Quantifier | null {
  let found: AST.Quantifier | null = null;
  visitRegExpAST(outer.element, {
    onQuantifierEnter(inner) {
      if (found || !repeats(inner)) return;
      if (outer.max === Infinity || inner.max === Infinity || outer.max * inner.max > MAX_NESTED_PRODUCT) found = inner;
    },
  });
  return found;
}

/**
 * Why an operator's regular expression is refused, or null when it may run. JavaScript's
 * engine backtracks, so a repeat inside a repeat (`(a+)+`, `(\w+\s?)*`, `(.*a){12}`) can take
 * exponential or high-polynomial time on a crafted text and stall the instance: such patterns
 * are refused at start (a static star-height check on the parsed pattern), as are
 * alternatives that can start with the same character under an unbounded repeat (`(a|aa)+`,
 * `(\w|\d)*`: the same text matched in many ways) and back-references (no linear bound either).
 */
export function regexRefusal(pattern: string, flags = 'iu'): string | null {
  if (pattern.length > MAX_PATTERN) return `longer than ${MAX_PATTERN} characters`;
  let ast: AST.Pattern;
  try {
    new RegExp(pattern, flags);
    ast = parser.parsePattern(pattern, undefined, undefined, { unicode: flags.includes('u') });
  } catch (e) {
    return `not a valid regular expression (${(e as Error).message})`;
  }
  let reason: string | null = null;
  visitRegExpAST(ast, {
    onBackreferenceEnter(node) {
      reason ??= `back-reference ${node.raw} (matching time has no linear bound)`;
    },
    onQuantifierEnter(outer) {
      if (reason || !repeats(outer)) return;
      const inner = dangerousInner(outer);
      if (inner) {
        reason = `nested quantifiers: ${inner.raw} repeated inside ${outer.raw} can backtrack catastrophically on a crafted text (rewrite without a repeat inside a repeat)`;
        return;
      }
      if (outer.max <= MAX_ALTERNATION_REPEAT) return;
      const overlap = overlappingAlternatives(outer, ast, flags);
      if (overlap)
        reason = `overlapping alternatives: ${overlap[0]} and ${overlap[1]} can both start with ${JSON.stringify(overlap[2])} under ${outer.raw}, so a text can be matched in exponentially many ways (make the alternatives start differently, e.g. a(b|c) for ab|ac)`;
    },
  });
  return reason;
}
