/**
 * The bench's media-jobs upstream, in its own process: the test suite's fixture
 * (test/fixtures/media-jobs-upstream.ts: OpenAI's video protocol, `POST /videos`,
 * `GET /videos/{id}`, `GET /videos/{id}/content`), each job done at its first poll, so a job
 * costs a proxy one submit, the polls its client makes and one download of 4 KB.
 */
import { startMediaJobsUpstream } from '../../test/fixtures/media-jobs-upstream';

const upstream = startMediaJobsUpstream({ pollsToDone: 1 });
// The fixture keeps every job it was given; a bench run submits a few thousand, a few MB.
process.stdout.write(`jobs upstream listening on ${new URL(upstream.url).port}\n`);
process.on('SIGTERM', () => {
  upstream.close();
  process.exit(0);
});
