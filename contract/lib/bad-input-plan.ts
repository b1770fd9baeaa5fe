import { randomUUID } from 'node:crypto';
import { badInputs, formCases, type BadCase } from './bad-input';
import { deployment, type Deployment } from './deployment';
import { env } from './env';
import { capacity } from './pacer';
import { solidPng } from './png';
import { sampleCases } from './sample';

/** One operation whose request schema the bad-input checks break field by field. */
export interface BadInputOperation {
  operationId: string;
  path: string;
  method: string;
  /** Sent as multipart form data (from the operation's multipart schema), else JSON. */
  form: boolean;
  valid: Record<string, unknown>;
  /** Whose failures its cases are for the abuse guard: the key's account, or the --write scratch account. */
  identity: 'account' | 'scratch';
  /** Why none of its cases run here, if so. */
  skip?: string;
}

/** The label a report gives an operation's cases: the operation id, with `(multipart)` for form data. */
export const labelOf = (o: { operationId: string; form?: boolean }) => (o.form ? `${o.operationId} (multipart)` : o.operationId);

/** Why this deployment and key cannot have a --write scratch account, or '' when they can. */
export function scratchUnavailable(d: Deployment): string {
  if (!env.write) return 'needs --write';
  if (!['createScratchAccount', 'deleteScratchAccount', 'creditAccount'].every((id) => d.own.byId.has(id)))
    return 'the deployment has no scratch-account operations';
  return d.operator ? '' : "the key is not an ADMIN key of the operator's account";
}

/**
 * Every operation the suite sends bad input to, with a valid body to break. The account writes
 * aim at an account or character that does not exist, so nothing is written even if a case were
 * wrongly accepted; the key writes run as the scratch account, which is deleted with them.
 */
export function badInputOperations(d: Deployment): BadInputOperation[] {
  const ops: BadInputOperation[] = [];
  const add = (operationId: string, path: string, valid: object, o: Partial<BadInputOperation> = {}) =>
    ops.push({ operationId, path, method: 'POST', form: false, identity: 'account', valid: valid as Record<string, unknown>, ...o });
  const missing = (id: string) => (d.own.byId.has(id) ? undefined : 'not in this deployment');

  add(
    'createChatCompletion',
    '/chat/completions',
    { model: d.textModel, messages: [{ role: 'user', content: 'x' }], max_tokens: 4 },
    {
      skip: d.textModel ? undefined : 'no text model',
    },
  );
  add(
    'createResponse',
    '/responses',
    { model: d.textModel, input: 'x', max_output_tokens: 4 },
    { skip: d.textModel ? undefined : 'no text model' },
  );
  add(
    'createEmbedding',
    '/embeddings',
    { model: d.embeddingModel, input: ['x'] },
    { skip: d.embeddingModel ? undefined : 'no embedding model' },
  );
  for (const [id, path] of [
    ['simpleGenerateImage', '/images/generations'],
    ['generateImage', '/image/generate'],
  ])
    add(
      id!,
      path!,
      { model: d.imageModel, prompt: 'a red square' },
      { skip: missing(id!) ?? (d.imageModel ? undefined : 'no image model') },
    );

  const png = solidPng();
  const file = () => new Blob([png], { type: 'image/png' });
  const base64 = Buffer.from(png).toString('base64');
  const uploads: [operationId: string, path: string, model: string | null | undefined, json: object, form: object][] = [
    ['editImage', '/image/edit', d.editModel, { image: base64, prompt: 'make it blue' }, { image: file(), prompt: 'make it blue' }],
    [
      'multiEditImage',
      '/image/multi-edit',
      d.editModel,
      { images: [base64], prompt: 'make it blue' },
      { images: [file()], prompt: 'make it blue' },
    ],
    ['upscaleImage', '/image/upscale', d.upscaleModel, { image: base64, scale: 2 }, { image: file(), scale: 2 }],
    // No model type tells background removal apart: the route's default model serves it.
    ['backgroundRemoveImage', '/image/background-remove', undefined, { image: base64 }, { image: file() }],
  ];
  for (const [operationId, path, model, json, form] of uploads) {
    const skip = missing(operationId) ?? (model === null ? 'the deployment lists no model of its type' : undefined);
    const withModel = model ? { model } : {};
    add(operationId, path, { ...withModel, ...json }, { skip });
    add(operationId, path, { ...withModel, ...form }, { skip, form: true });
  }

  const notOperator = d.operator ? undefined : "the key is not an ADMIN key of the operator's account";
  const nobody = randomUUID();
  add('creditAccount', `/admin/accounts/${nobody}/credits`, { currency: 'USD', amount: '1' }, { skip: notOperator });
  add('putAccountRateLimits', `/admin/accounts/${nobody}/rate_limits`, { tier: 'standard' }, { method: 'PUT', skip: notOperator });
  add('createCharacterReview', `/characters/contract-no-such-character-${nobody}/reviews`, {
    username: 'svc contract suite',
    rating: 5,
    message: 'ok',
    locale: 'en',
    userAvatarUrl: null,
  });

  const unavailable = scratchUnavailable(d) || undefined;
  add(
    'createApiKey',
    '/api_keys',
    { apiKeyType: 'INFERENCE', description: 'svc contract suite' },
    { identity: 'scratch', skip: unavailable },
  );
  add(
    'updateApiKey',
    '/api_keys',
    { id: '00000000-0000-4000-8000-000000000000', description: 'x' },
    {
      method: 'PATCH',
      identity: 'scratch',
      skip: unavailable,
    },
  );
  add('createScratchAccount', '/admin/accounts', { scratch: true, displayName: 'svc contract suite' }, { skip: unavailable });
  return ops;
}

/**
 * The deliberate failures the other checks make on the key's account, which the bad-input
 * cases share the budget with: an unknown model twice, a bad field and a bad suffix (400s), a
 * non-UUID account id, two 403s of an INFERENCE key, a deleted key and a deleted account (404s).
 */
const OTHER_ACCOUNT_FAILURES = 9;

/**
 * The share of `--max-seconds` the paced failures of the key's account may take; the rest is for
 * the other checks on a loaded machine. The budget assumes a run that follows another one (no
 * burst left): a first run is faster, never slower.
 */
const FAILURE_SHARE = 0.5;

/** What the run sends: every operation's generated cases and the ones chosen, and a line saying so. */
export interface BadInputPlan {
  operations: Map<string, BadInputOperation>;
  generated: Map<string, BadCase[]>;
  chosen: Map<string, BadCase[]>;
  summary: string;
}

let planned: Promise<BadInputPlan> | null = null;

/** The bad-input plan of this run (the same in every test file: it depends only on the deployment and the flags). */
export function badInputPlan(): Promise<BadInputPlan> {
  planned ??= deployment().then(makePlan);
  return planned;
}

function makePlan(d: Deployment): BadInputPlan {
  const operations = new Map<string, BadInputOperation>();
  const generated = new Map<string, BadCase[]>();
  for (const o of badInputOperations(d)) {
    const schema = d.own.byId.get(o.operationId)?.op.requestBody?.content?.[o.form ? 'multipart/form-data' : 'application/json']?.schema;
    if (!o.skip && !schema) o.skip = `no ${o.form ? 'multipart/form-data' : 'application/json'} request schema published`;
    operations.set(labelOf(o), o);
    if (o.skip || !schema) continue;
    const cases = badInputs(d.own.deref(schema), o.valid, d.own);
    generated.set(labelOf(o), o.form ? formCases(cases) : cases);
  }
  if (env.badInput && env.badInput !== 'all' && !/^\d+$/.test(env.badInput))
    throw new Error(`contract: --bad-input is all or a number, not ${env.badInput}`);
  const all = env.badInput === 'all' || (env.abuseMaxFailures === 0 && env.badInput === '');
  // The scratch account is new each run, so its cases get its first burst, which costs no time.
  const room = {
    account: capacity(env.maxSeconds * FAILURE_SHARE, { warm: true }) - OTHER_ACCOUNT_FAILURES,
    scratch: env.abuseMaxFailures === 0 ? Infinity : capacity(0),
  };
  const chosen = new Map<string, BadCase[]>();
  const counts = { generated: 0, chosen: 0 };
  for (const identity of ['account', 'scratch'] as const) {
    const mine = new Map([...generated].filter(([label]) => operations.get(label)!.identity === identity));
    const n = all ? Infinity : identity === 'account' && env.badInput ? Number(env.badInput) : room[identity];
    for (const [label, cases] of sampleCases(mine, n, env.seed)) chosen.set(label, cases);
  }
  for (const cases of generated.values()) counts.generated += cases.length;
  for (const cases of chosen.values()) counts.chosen += cases.length;
  const guard = `the abuse guard's ${env.abuseMaxFailures} failures per ${env.abuseWindow} s, a run of ${env.maxSeconds} s`;
  const summary =
    counts.chosen === counts.generated
      ? `contract: bad input: all ${counts.generated} generated cases ran (${env.abuseMaxFailures ? guard : 'no abuse guard'})`
      : `contract: bad input: ${counts.chosen} of ${counts.generated} generated cases ran, every operation at least once ` +
        `(${counts.generated - counts.chosen} not sampled, to stay under ${guard}); --seed ${env.seed} repeats this sample, ` +
        '--bad-input all runs them all (unpaced with --abuse-max-failures 0, where there is no guard)';
  return { operations, generated, chosen, summary };
}
