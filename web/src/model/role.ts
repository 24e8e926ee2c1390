/** The role of a token, as the page shows it (the service decides): `admin` when its groups name it. */
export function roleOfToken(token: string): 'admin' | 'viewer' | 'ingest' {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as Record<
      string,
      unknown
    >;
    if (typeof payload.scope === 'string' && payload.scope.split(' ').includes('lrs/ingest')) return 'ingest';
    const groups = payload['cognito:groups'];
    const names = Array.isArray(groups) ? groups.map(String) : typeof groups === 'string' ? groups.split(/[\s,]+/) : [];
    return names.includes('admin') ? 'admin' : 'viewer';
  } catch {
    return 'viewer';
  }
}
