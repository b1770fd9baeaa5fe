import { visitRegExpAST, type AST } from '@eslint-community/regexpp';

/**
 * Characters the first-character sets are compared on: printable ASCII, the usual blanks, a
 * few non-ASCII letters, digits and symbols, plus every literal of the pattern (so `é` or
 * `中` written in it is compared too). A class is known by the samples it matches: enough to
 * see that `\w` and `\d`, `.` and `\s`, `a` and `[a-z]` share characters.
 */
const BASE_SAMPLES = [
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)),
  '\t',
  '\n',
  '\r',
  '\u00a0',
  'é',
  'ß',
  'Ж',
  '中',
  '١',
  '😀',
];

type Element = AST.Element;

/** The samples `node` (one character's worth of pattern) matches. */
function matching(node: Element, samples: readonly string[], flags: string): Set<string> {
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${node.raw})$`, flags);
  } catch {
    return new Set(samples); // not compilable on its own: assume it may match anything
  }
  return new Set(samples.filter((s) => re.test(s)));
}

/**
 * The samples a sequence of elements can start with; `nullable` tells whether the whole
 * sequence can match the empty text (then what follows it can start the match too).
 */
function firstOf(elements: readonly Element[], samples: readonly string[], flags: string): { first: Set<string>; nullable: boolean } {
  const first = new Set<string>();
  for (const el of elements) {
    const step = firstOfElement(el, samples, flags);
    for (const s of step.first) first.add(s);
    if (!step.nullable) return { first, nullable: false };
  }
  return { first, nullable: true };
}

function firstOfElement(el: Element, samples: readonly string[], flags: string): { first: Set<string>; nullable: boolean } {
  switch (el.type) {
    case 'Assertion':
      return { first: new Set(), nullable: true };
    case 'Group':
    case 'CapturingGroup': {
      const first = new Set<string>();
      let nullable = false;
      for (const alt of el.alternatives) {
        const a = firstOf(alt.elements, samples, flags);
        for (const s of a.first) first.add(s);
        nullable ||= a.nullable;
      }
      return { first, nullable };
    }
    case 'Quantifier': {
      const inner = firstOfElement(el.element, samples, flags);
      return { first: inner.first, nullable: inner.nullable || el.min === 0 };
    }
    case 'Backreference':
      return { first: new Set(samples), nullable: true };
    default:
      return { first: matching(el, samples, flags), nullable: false };
  }
}

/** The samples: the base ones and the pattern's own literal characters. */
function samplesOf(pattern: AST.Pattern): string[] {
  const set = new Set(BASE_SAMPLES);
  visitRegExpAST(pattern, {
    onCharacterEnter(c) {
      set.add(String.fromCodePoint(c.value));
    },
  });
  return [...set];
}

/**
 * The first alternation under the repeat `outer` whose branches can start with the same
 * character (`(a|aa)+`, `(\w|\d)*`, `(.|\s){2,}`), as `[branch, branch, shared char]`; null
 * when none. Branches that share a first character can match the same text in more than
 * one way per repeat, and a failing match then tries every way: exponential time. Branches
 * that merely share a prefix (`(ab|ac)+`) are refused too, a false alarm the operator avoids
 * by factoring the prefix out (`a(b|c)`): the check stays a cheap look at the parsed pattern.
 */
export function overlappingAlternatives(outer: AST.Quantifier, pattern: AST.Pattern, flags: string): [string, string, string] | null {
  let found: [string, string, string] | null = null;
  let samples: string[] | null = null;
  const check = (alternatives: readonly AST.Alternative[]) => {
    if (found || alternatives.length < 2) return;
    samples ??= samplesOf(pattern);
    const firsts = alternatives.map((a) => firstOf(a.elements, samples!, flags).first);
    for (let i = 0; i < firsts.length && !found; i++)
      for (let j = i + 1; j < firsts.length && !found; j++)
        for (const s of firsts[i]!)
          if (firsts[j]!.has(s)) {
            found = [alternatives[i]!.raw, alternatives[j]!.raw, s];
            break;
          }
  };
  visitRegExpAST(outer.element, {
    onGroupEnter: (g) => check(g.alternatives),
    onCapturingGroupEnter: (g) => check(g.alternatives),
  });
  return found;
}
