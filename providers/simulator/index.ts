import type { Logger } from '../../src/log';
import type { Capabilities } from '../../src/models/schema';
import type { Capability, Provider } from '../types';
import { simulatedChat, type SimulatorOptions } from './chat';
import { simulatedEmbed } from './embeddings';
import { simulatedImages } from './images';
import { simulatedSpeech, simulatedTranscription } from './speech';
import { simulatedMediaJobs } from './media-jobs';

export { simulatedVector } from './embeddings';

/** What the simulator needs from the catalog: which upstream model names think, and embedding dimensions. */
export interface SimulatorCatalog {
  isReasoning: (model: string) => boolean;
  dimensionsOf: (model: string) => number | undefined;
  /** The catalog flags of an upstream model name (the simulator does what they claim). */
  capabilitiesOf?: (model: string) => Partial<Capabilities>;
}

const CAPABILITIES: readonly Capability[] = ['chat', 'embed', 'images', 'speech', 'transcribe', 'jobs'];

/**
 * The built-in simulator (kind `simulator`): chat with canned text, embeddings with
 * deterministic vectors, images drawn with sharp, speech as really encoded tone sequences and
 * transcripts that follow the file's duration, no model weights. It lets `npm start` work with no upstream at all,
 * and every model it serves is labelled as simulated in /models.
 */
export function simulator(o: { id: string; options: SimulatorOptions; catalog: SimulatorCatalog; log: Logger }): Provider {
  const CAPABILITIES: readonly Capability[] = ['chat', 'embed', 'images', 'speech', 'transcribe', 'jobs'];
  return {
    id: o.id,
    simulated: true,
    capabilities: new Set(CAPABILITIES),
    chat: simulatedChat({ options: o.options, isReasoning: o.catalog.isReasoning, capabilitiesOf: o.catalog.capabilitiesOf }),
    embed: simulatedEmbed({ dimensionsOf: o.catalog.dimensionsOf }),
    images: simulatedImages(),
    speech: simulatedSpeech,
    transcribe: simulatedTranscription,
    jobs: simulatedMediaJobs(o.options),
  };
}
