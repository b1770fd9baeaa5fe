import { createHash, randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/database';
import { clonedVoices } from '../db/schema';
import type { AudioUpload } from './upload';

/** The pattern of a cloned voice id (the reference's `voice` pattern). */
export const CLONED_VOICE = /^vv_[A-Za-z0-9_-]+$/;

/** A stored cloned voice. */
export interface ClonedVoice {
  id: string;
  modelId: string;
}

/**
 * Cloned voices per account, in the database (both drivers). A voice is found only by its
 * owner: another account's id reads exactly like one that does not exist.
 */
export class VoiceStore {
  constructor(private readonly db: Database) {}

  /** Stores a voice made from `sample` for `modelId` and returns its new `vv_` id. */
  async create(accountId: string, modelId: string, sample: AudioUpload): Promise<ClonedVoice> {
    const id = `vv_${randomBytes(12).toString('base64url')}`;
    await this.db.insert(clonedVoices).values({
      id,
      accountId,
      modelId,
      sampleFormat: sample.format,
      sampleMs: Math.round(sample.durationSeconds * 1000),
      sampleSha256: createHash('sha256').update(sample.bytes).digest('hex'),
    });
    return { id, modelId };
  }

  /** The account's own voice `id`, or null (unknown, or another account's). */
  async find(accountId: string, id: string): Promise<ClonedVoice | null> {
    const rows = await this.db
      .select({ id: clonedVoices.id, modelId: clonedVoices.modelId })
      .from(clonedVoices)
      .where(and(eq(clonedVoices.id, id), eq(clonedVoices.accountId, accountId)))
      .limit(1);
    return rows[0] ?? null;
  }
}
