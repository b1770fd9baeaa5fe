import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt } from 'drizzle-orm';
import type { Database } from '../db/database';
import { clonedVoices } from '../db/schema';
import type { AudioUpload } from './upload';

/** The pattern of a cloned voice id (the reference's `voice` pattern). */
export const CLONED_VOICE = /^vv_[A-Za-z0-9_-]+$/;

const DAY_MS = 86_400_000;

/** A stored cloned voice. */
export interface ClonedVoice {
  id: string;
  modelId: string;
}

/** How long a voice lives: its model's retention window, counted from creation (zero_shot) or from its last use (persistent). */
export interface Retention {
  mode: 'zero_shot' | 'persistent';
  retentionDays: number;
}

/**
 * Cloned voices per account, in the database (both drivers). A voice is found only by its
 * owner and before it expires: another account's id, or an expired one, reads exactly like
 * one that does not exist.
 */
export class VoiceStore {
  constructor(
    private readonly db: Database,
    private readonly now: () => number,
  ) {}

  /** Stores a voice made from `sample` for `modelId` and returns its new `vv_` id. */
  async create(accountId: string, modelId: string, sample: AudioUpload, retention: Retention): Promise<ClonedVoice> {
    const id = `vv_${randomBytes(12).toString('base64url')}`;
    await this.db.insert(clonedVoices).values({
      id,
      accountId,
      modelId,
      sampleFormat: sample.format,
      sampleMs: Math.round(sample.durationSeconds * 1000),
      sampleSha256: createHash('sha256').update(sample.bytes).digest('hex'),
      createdAt: new Date(this.now()),
      expiresAt: new Date(this.now() + retention.retentionDays * DAY_MS),
    });
    return { id, modelId };
  }

  /** The account's own live voice `id`, or null (unknown, expired, or another account's). */
  async find(accountId: string, id: string): Promise<ClonedVoice | null> {
    const rows = await this.db
      .select({ id: clonedVoices.id, modelId: clonedVoices.modelId })
      .from(clonedVoices)
      .where(and(eq(clonedVoices.id, id), eq(clonedVoices.accountId, accountId), gt(clonedVoices.expiresAt, new Date(this.now()))))
      .limit(1);
    return rows[0] ?? null;
  }

  /** After a successful use: a persistent voice's window starts again. */
  async used(id: string, retention: Retention): Promise<void> {
    if (retention.mode !== 'persistent') return;
    await this.db
      .update(clonedVoices)
      .set({ expiresAt: new Date(this.now() + retention.retentionDays * DAY_MS) })
      .where(eq(clonedVoices.id, id));
  }
}
