import { isClientError, isRefusal } from '@svc/plugin-sdk';
import { invalidField, ServiceError } from '../http/errors';
import { pluginFailed, pluginRefused } from '../metrics/plugins';

/** A plugin stopped the request: it refused (a 4xx it chose) or failed (a 5xx naming it). */
export class PluginStop extends ServiceError {
  constructor(
    status: number,
    body: { error: string; code?: string },
    readonly plugin: string,
    /** The refusal's reason; null when the plugin failed. */
    readonly reason: string | null,
    /** The refusal asked for one more upstream call before it stands (`refuse(..., { retry: true })`). */
    readonly retry = false,
  ) {
    super(status, body);
  }
}

/** A hook that ran past the plugin's time budget. */
export class PluginTimeout extends Error {
  override name = 'PluginTimeout';
  constructor(ms: number) {
    super(`it did not answer within ${ms} ms`);
  }
}

/**
 * What a hook's throw becomes for the client. A refusal: its status (400 before the
 * upstream call, 422 after) and `"<plugin>: <reason>"`. A client error a plugin threw on
 * purpose (`clientError`: a 404 for an unknown character): as it is. Anything else (a bug, a timeout):
 * 500 before the upstream call, 502 after, naming the plugin; logged with the request id.
 */
export function pluginStop(
  error: unknown,
  plugin: string,
  after: boolean,
  log: { error(msg: string, fields?: Record<string, unknown>): void },
  requestId: string,
): ServiceError {
  if (error instanceof PluginStop) return error;
  if (isRefusal(error)) {
    pluginRefused(plugin);
    const body: { error: string; code?: string } = { error: `${plugin}: ${error.reason}` };
    if (error.code) body.code = error.code;
    return new PluginStop(error.status ?? (after ? 422 : 400), body, plugin, error.reason, error.retry === true);
  }
  if (error instanceof ServiceError) return error;
  if (isClientError(error))
    return error.field ? invalidField(error.field, error.message, 'body') : new ServiceError(error.status, { error: error.message });
  pluginFailed(plugin);
  const message = error instanceof Error ? error.message : String(error);
  log.error('plugin failed', { requestId, plugin, error: error instanceof Error ? (error.stack ?? message) : message });
  return new PluginStop(after ? 502 : 500, { error: `plugin ${plugin} failed: ${message}` }, plugin, null);
}
