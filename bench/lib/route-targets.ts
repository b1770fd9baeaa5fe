import type { Child } from './proc';
import type { Target } from './targets';
import type { SvcUnderTest } from '../servers/svc';
import { BENCH_RPC_NETWORK } from '../servers/svc-config';

/** The bare proxy as a target: its relays of every route svc is measured on. */
export function bareTarget(bareUrl: string, bare: Child): Target {
  return {
    name: 'bare',
    chatUrl: `${bareUrl}/chat/completions`,
    embeddingsUrl: `${bareUrl}/embeddings`,
    imagesUrl: `${bareUrl}/images/generations`,
    imageEditUrl: `${bareUrl}/image/edit`,
    metricsUrl: `${bareUrl}/metrics`,
    headers: {},
    pid: bare.pid,
    families: {
      speechUrl: `${bareUrl}/audio/speech`,
      responsesUrl: `${bareUrl}/responses`,
      rpcUrl: `${bareUrl}/crypto/rpc/${BENCH_RPC_NETWORK}`,
      jobs: { api: 'openai', base: bareUrl },
    },
  };
}

/** A svc under test as a target: its routes, its /metrics and its process. */
export function svcTarget(name: string, svc: SvcUnderTest): Target {
  return {
    name,
    chatUrl: `${svc.url}/chat/completions`,
    embeddingsUrl: `${svc.url}/embeddings`,
    imagesUrl: `${svc.url}/images/generations`,
    imageEditUrl: `${svc.url}/image/edit`,
    metricsUrl: `${new URL(svc.url).origin}/metrics`,
    headers: { authorization: `Bearer ${svc.key}` },
    pid: svc.child.pid,
    families: {
      speechUrl: `${svc.url}/audio/speech`,
      responsesUrl: `${svc.url}/responses`,
      rpcUrl: `${svc.url}/crypto/rpc/${BENCH_RPC_NETWORK}`,
      jobs: { api: 'svc', base: svc.url },
    },
  };
}
