import { requireTarget } from './env';
import { call } from './http';
import { ownDescription, referenceDescription, type Validators } from './spec';

/** What the suite learns of the deployment before checking it: its descriptions and what it offers. */
export interface Deployment {
  own: Validators;
  reference: Validators | null;
  /** A text model id (the first one /models lists), or null. */
  textModel: string | null;
  /** An embedding model id, or null. */
  embeddingModel: string | null;
  /** An image generation model id, or null. */
  imageModel: string | null;
  /** An image edit (inpaint) model id, or null. */
  editModel: string | null;
  /** An upscale model id, or null. */
  upscaleModel: string | null;
  /** A character slug that has reviews listed, or null. */
  characterSlug: string | null;
  /** The id of a key of the account (GET /api_keys), or null. */
  apiKeyId: string | null;
  /** Whether the key is the operator's (GET /admin/accounts answers it): the account operations and --write's scratch account. */
  operator: boolean;
  /** An account id the operator's list gives, or null (not the operator, or no such operation). */
  accountId: string | null;
}

let found: Promise<Deployment> | null = null;

/** Discovers the deployment once per run: models from /models, characters, keys and accounts from their lists. */
export function deployment(): Promise<Deployment> {
  found ??= (async () => {
    requireTarget();
    const [own, reference] = await Promise.all([ownDescription(), referenceDescription()]);
    const idOf = async (type: string) => {
      const a = await call(`/models?type=${type}`, { key: null });
      const data = (a.json as { data?: { id: string }[] } | undefined)?.data;
      return data?.[0]?.id ?? null;
    };
    const firstOf = async <T>(path: string): Promise<T | null> => {
      const a = await call(path);
      return a.status === 200 ? ((a.json as { data?: T[] } | undefined)?.data?.[0] ?? null) : null;
    };
    const character = await firstOf<{ slug: string }>('/characters');
    const key = await firstOf<{ id: string }>('/api_keys');
    const accounts = own.byId.has('listAccounts') ? await call('/admin/accounts?limit=1') : null;
    const account = accounts?.status === 200 ? (accounts.json as { data: { id: string }[] }).data[0] : undefined;
    return {
      own,
      reference,
      textModel: await idOf('text'),
      embeddingModel: await idOf('embedding'),
      imageModel: await idOf('image'),
      editModel: await idOf('inpaint'),
      upscaleModel: await idOf('upscale'),
      characterSlug: character?.slug ?? null,
      apiKeyId: key?.id ?? null,
      operator: accounts?.status === 200,
      accountId: account?.id ?? null,
    };
  })();
  return found;
}
