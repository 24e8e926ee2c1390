/** A word for a POSIX shell: single-quoted, a single quote written as '\''. */
export const shellQuote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * The report request as a curl command a person can paste into a shell. The token stays out of it
 * (`$TOKEN`, as `npm start` prints it), so a copied command never carries a credential.
 */
export function curlCommand(origin: string, body: unknown, accept: 'application/json' | 'text/csv'): string {
  return [
    'curl -s',
    '-H "Authorization: Bearer $TOKEN"',
    `-H ${shellQuote('Content-Type: application/json')}`,
    `-H ${shellQuote(`Accept: ${accept}`)}`,
    shellQuote(`${origin}/reports:query`),
    `-d ${shellQuote(JSON.stringify(body))}`,
  ].join(' ');
}
