import { PROBLEM_SLUGS, PROBLEM_TYPES, type ProblemSlug, type ProblemTypeDoc } from './problem-types';
import { DEFAULT_PROBLEM_TYPE_BASE } from './problem-uri';

/**
 * The problems page, from the table of problem types: as Markdown (docs/problems.md, written by
 * `npm run openapi`) and as HTML (`GET /problems`, where the `type` of every problem points). One
 * section per type, its anchor the slug: `/problems#too-many-buckets`.
 */

const TITLE = 'Problem types';

/** What the HTML page may load: nothing (no script, style, image or frame of its own or of others). */
export const PROBLEMS_PAGE_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The introduction, with `code` spans (Markdown); the HTML page renders them. */
const INTRO = [
  'Every error the service answers is an `application/problem+json` body (RFC 9457) with `type`, `title`, `status`, `detail` and the `requestId` of the request (quote it to find the request in the logs). Its `type` names one of the types below: `/problems#<type>`, this page with the type as its fragment.',
  "A relative `type` resolves against the address of the API (RFC 9457, 3.1.1), where `GET /problems` serves this page, so the same string is every deployment's. A deployment that publishes the page elsewhere sets `PROBLEM_TYPE_BASE` (for example `https://docs.example.org/lrs/problems#`), and its types are absolute.",
  'The OpenAPI document lists the types as an enum of `Problem.type`. API Gateway answers some errors itself before the service sees the request (`{"message":"Unauthorized"}`, `{"message":"Too Many Requests"}`): those are not problems.',
];

const membersOf = (slug: ProblemSlug): [string, string][] =>
  Object.entries((PROBLEM_TYPES[slug] as ProblemTypeDoc).members ?? {});

/** docs/problems.md: GitHub gives a heading `## too-many-buckets` the anchor `#too-many-buckets`. */
export function problemsMarkdown(): string {
  const sections = PROBLEM_SLUGS.map((slug) => {
    const { title, status, description } = PROBLEM_TYPES[slug];
    const members = membersOf(slug);
    const table =
      members.length === 0
        ? []
        : [
            '',
            '| member | meaning |',
            '|---|---|',
            ...members.map(([name, meaning]) => `| \`${name}\` | ${meaning} |`),
          ];
    return [
      `## ${slug}`,
      '',
      `**${status} ${title}**: \`${DEFAULT_PROBLEM_TYPE_BASE}${slug}\``,
      '',
      description,
      ...table,
    ].join('\n');
  });
  const generated = '<!-- Written by `npm run openapi` from shared/problem-types.ts; a test checks it is current. -->';
  return [`# ${TITLE}`, '', generated, '', ...INTRO.flatMap((p) => [p, '']), ...sections.flatMap((s) => [s, ''])].join(
    '\n',
  );
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Inline Markdown of the table (code spans and bold only) as HTML. */
const inline = (markdown: string): string =>
  escapeHtml(markdown)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

/** The page `GET /problems` answers: plain HTML, no script, no style, no outside resource. */
export function problemsHtml(): string {
  const sections = PROBLEM_SLUGS.map((slug) => {
    const { title, status, description } = PROBLEM_TYPES[slug];
    const members = membersOf(slug);
    const list =
      members.length === 0
        ? ''
        : `\n<dl>${members.map(([name, meaning]) => `<dt><code>${name}</code></dt><dd>${inline(meaning)}</dd>`).join('')}</dl>`;
    return `<section id="${slug}">\n<h2>${slug}</h2>\n<p><strong>${status} ${escapeHtml(title)}</strong></p>\n<p>${inline(description)}</p>${list}\n</section>`;
  });
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${TITLE} · Location and Reporting Service</title></head>`,
    '<body>',
    `<h1>${TITLE}</h1>`,
    ...INTRO.map((p) => `<p>${inline(p)}</p>`),
    ...sections,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
