import { Type, definePlugin } from '@svc/plugin-sdk';

/** The line item of one request with native x-search. */
export const X_SEARCH_SKU = 'x-search';

/**
 * `enable_x_search`: for models whose capabilities say `supportsXSearch` (an upstream with
 * native web-plus-social search), sends the native option upstream in xAI's Live Search
 * form, `search_parameters: { mode: 'on', sources: [{type:'web'},{type:'x'}],
 * return_citations: true }`, charges `search.xSearchPriceMicros`, and bypasses the standard
 * web search. The upstream's `citations` (a list of URLs, as xAI returns them) are echoed
 * as `svc_parameters.web_search_citations`. Not a suffix key and not echoed (reference).
 */
export const enableXSearch = definePlugin({
  name: 'enable_x_search',
  parameters: {
    enable_x_search: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "Uses the upstream's native web-plus-social search on supporting models; bypasses the standard web search; extra charge.",
      }),
    ),
  },
  isActive: (ctx) => ctx.params.enable_x_search === true && ctx.model.config.capabilities?.supportsXSearch === true,
  transformRequest(req, ctx) {
    req.search_parameters = { mode: 'on', sources: [{ type: 'web' }, { type: 'x' }], return_citations: true };
    ctx.extraCharges.push({ sku: X_SEARCH_SKU, units: 1, unitPriceMicros: ctx.services.web.config.xSearchPriceMicros });
  },
  transformResponse(body, ctx) {
    const citations = body.citations;
    if (Array.isArray(citations)) {
      const urls = citations.filter((c): c is string => typeof c === 'string');
      ctx.echo.web_search_citations = urls.map((url) => ({ title: url, url }));
    }
    return body;
  },
});
