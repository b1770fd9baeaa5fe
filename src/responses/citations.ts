/** A search result the answer may cite (the entries of `svc_parameters.web_search_citations`). */
export interface CitedSource {
  title?: string;
  url: string;
}

/** A `url_citation` annotation of an `output_text` part. */
export interface UrlCitation {
  type: 'url_citation';
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

const MARKER = /\[REF\](\d+)\[\/REF\]/g;

/**
 * The `[REF]i[/REF]` markers of an answer (how svc's web search asks models to cite, spec
 * "citations") as url_citation annotations over the marker's own span, one per marker whose
 * index names a search result; markers naming no result are left without one. Indices are
 * UTF-16 offsets, as JavaScript clients slice the text.
 */
export function urlCitations(text: string, sources: readonly CitedSource[] | undefined): UrlCitation[] {
  if (!sources?.length || !text.includes('[REF]')) return [];
  const out: UrlCitation[] = [];
  for (const m of text.matchAll(MARKER)) {
    const source = sources[Number(m[1])];
    if (!source?.url) continue;
    out.push({
      type: 'url_citation',
      url: source.url,
      title: source.title || source.url,
      start_index: m.index,
      end_index: m.index + m[0].length,
    });
  }
  return out;
}
