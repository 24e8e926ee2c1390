import { ROUTES } from '../../../functions/routes';
import { LOCATION_ROUTES } from '../../../functions/manage-locations';
import { INGEST_CLIENT_ROUTES } from '../../../functions/manage-ingest-clients';
import { WEBHOOK_ENDPOINT_ROUTES } from '../../../functions/manage-webhook-endpoints';
import { ALERT_RULE_ROUTES } from '../../../functions/manage-alert-rules';

/** A route family's function has a route for every route of functions/routes.ts that names it, and none besides. */
test.each([
  ['manage-locations', LOCATION_ROUTES],
  ['manage-ingest-clients', INGEST_CLIENT_ROUTES],
  ['manage-webhook-endpoints', WEBHOOK_ENDPOINT_ROUTES],
  ['manage-alert-rules', ALERT_RULE_ROUTES],
] as const)('the family %s answers exactly its routes', (name, family) => {
  const declared = ROUTES.filter((r) => r.handler === name)
    .map((r) => `${r.method} ${r.path}`)
    .sort();
  expect(Object.keys(family).sort()).toEqual(declared);
});
