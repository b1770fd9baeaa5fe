import type { Caller, RequestContext } from '../http/request-context';

/** Alternative authenticators (SIGN-IN-WITH-X) tried when no bearer key is sent. */
export type WalletAuthenticator = (request: Request, ctx: RequestContext) => Promise<Caller | null>;
