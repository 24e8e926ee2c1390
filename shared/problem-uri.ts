import type { ProblemSlug } from './problem-types';

/**
 * Where a problem type's documentation is, and so its `type` (RFC 9457, 3.1.1): the problems page
 * and the slug as its fragment. The default is the page every deployment serves itself, `GET
 * /problems`, as the full-path reference the RFC asks for when a type is relative: the same string
 * from every deployment (clients compare it, and the OpenAPI document lists it), resolvable against
 * the API's own address. A deployment that publishes the page elsewhere sets an absolute base
 * (`PROBLEM_TYPE_BASE`; see docs/errors-and-decisions.md, "Problem type URIs").
 */
export const DEFAULT_PROBLEM_TYPE_BASE = '/problems#';

export const problemTypeUri = (slug: ProblemSlug, base: string = DEFAULT_PROBLEM_TYPE_BASE): string => base + slug;

/**
 * Why `base` cannot be a problem type base (undefined when it can): an absolute http(s) URL ending
 * in `#` or `/`, so that base + slug addresses the type's section, or the default.
 */
export function problemTypeBaseError(base: string): string | undefined {
  if (base === DEFAULT_PROBLEM_TYPE_BASE) return undefined;
  const protocol = URL.canParse(base) ? new URL(base).protocol : undefined;
  if (protocol !== 'https:' && protocol !== 'http:') return `must be an absolute http(s) URL, got "${base}"`;
  if (!base.endsWith('#') && !base.endsWith('/'))
    return `must end in "#" (the page's anchors) or "/" (a page per type), got "${base}"`;
  return undefined;
}
