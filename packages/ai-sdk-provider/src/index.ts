export { createSvc, svc, DEFAULT_BASE_URL, VERSION, type SvcProvider, type SvcProviderSettings } from './provider.js';
export { svcOptions, type SvcCacheMode, type SvcParameters, type SvcProviderOptions } from './parameters.js';
export { svcErrorSchema, svcErrorStructure, type SvcErrorData } from './errors.js';
export { svcCostMetadata, type SvcCost } from './metadata.js';
