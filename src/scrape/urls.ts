// Shared with plugins through the SDK (enable_web_scraping and enable_web_search read the same URLs).
export { extractUrls, MAX_URLS as MAX_SCRAPED_URLS } from '@svc/plugin-sdk';
