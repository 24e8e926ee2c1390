import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type AccessScope, grants, requireGranted } from '#shared/access/scope';
import { NotFoundError, ValidationError } from '#shared/errors';
import {
  type AlertRule,
  type AlertRuleSpec,
  MAX_RULES_PER_ORGANIZATION,
  toAlertRuleResource,
  validateAlertRule,
} from '#shared/alerts/rules';
import { AlertStore, AlertWriteConflictError } from '#shared/alerts/store';
import type { LocationStore } from '#shared/locations/store';
import { ConflictError, PreconditionFailedError } from '#shared/locations/errors';
import { itemTable, locationStore } from '#commons/clients/dynamo';
import type { Provider } from '#commons/clients/lazy';
import { type IfMatch, ifMatchOf, revisionEtag } from '#commons/http/preconditions';
import { type FamilyRequest, type FamilyRoute, routeFamily } from '#commons/http/route-family';

/** An alert rule body is small: 4 KiB is ample. */
export const MAX_ALERT_RULE_BODY_BYTES = 4096;

export interface ManageAlertRulesDeps {
  readonly rules: Provider<Pick<AlertStore, 'listRules' | 'getRule' | 'createRule' | 'replaceRule' | 'deleteRule'>>;
  readonly locations: Provider<Pick<LocationStore, 'getLocationWithGroups'>>;
  /** @default Date.now */
  readonly now?: () => number;
}

type Request = FamilyRequest<ManageAlertRulesDeps>;

const defaultDeps: ManageAlertRulesDeps = {
  rules: async () => new AlertStore(await itemTable()),
  locations: locationStore,
};

/**
 * Alert rules (docs/alerts.md), one Lambda for the family: `POST /alert-rules` (201), `GET
 * /alert-rules`, `GET /alert-rules/{ruleId}` (strong ETag), `PUT /alert-rules/{ruleId}` (If-Match
 * required: 428, 412) and `DELETE /alert-rules/{ruleId}` (204; If-Match honoured when sent). Viewers
 * read, admins write, each within the token's location grant: a rule of a location outside it is
 * not there (404), as the location itself is not.
 */
export function createManageAlertRulesHandler(deps: ManageAlertRulesDeps = defaultDeps) {
  return routeFamily('manage-alert-rules', ALERT_RULE_ROUTES, deps);
}

export const ALERT_RULE_ROUTES: Readonly<Record<string, FamilyRoute<ManageAlertRulesDeps>>> = {
  'POST /alert-rules': { purpose: 'admin', bodyMaxBytes: MAX_ALERT_RULE_BODY_BYTES, run: postRule },
  'GET /alert-rules': { purpose: 'read', run: listRules },
  'GET /alert-rules/{ruleId}': { purpose: 'read', run: getRule },
  'PUT /alert-rules/{ruleId}': { purpose: 'admin', bodyMaxBytes: MAX_ALERT_RULE_BODY_BYTES, run: putRule },
  'DELETE /alert-rules/{ruleId}': { purpose: 'admin', run: removeRule },
};

async function postRule({ scope, deps, body }: Request) {
  const spec = validateAlertRule(body);
  await checkTarget(deps, scope, spec);
  const store = await deps.rules();
  if ((await store.listRules(scope.organizationId)).length >= MAX_RULES_PER_ORGANIZATION) {
    throw new ConflictError(
      `The organization has ${MAX_RULES_PER_ORGANIZATION} alert rules, the most it may have: delete one first.`,
      { reason: 'too-many-rules', maxRules: MAX_RULES_PER_ORGANIZATION },
    );
  }
  const rule = await store.createRule(scope.organizationId, spec, scope.subject, nowIso(deps));
  return answer(201, rule, { Location: `/alert-rules/${rule.id}` });
}

async function listRules({ scope, deps }: Request) {
  const rules = (await (await deps.rules()).listRules(scope.organizationId))
    .filter((r) => grants(scope, r.spec.locationId))
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'private, no-cache' },
    body: JSON.stringify({ alertRules: rules.map(toAlertRuleResource) }),
  };
}

async function getRule({ event, scope, deps }: Request) {
  return answer(200, await readRule(deps, scope, pathId(event)));
}

async function putRule({ event, scope, deps, body }: Request) {
  const id = pathId(event);
  const current = await readRule(deps, scope, id);
  const expected = ifMatchOf(event, true, `PUT /alert-rules/${id}`)!;
  const spec = validateAlertRule(body);
  await checkTarget(deps, scope, spec);
  checkExpected(current, expected);
  const rule = await conflictsAsStale(
    current,
    (await deps.rules()).replaceRule(current, spec, scope.subject, nowIso(deps)),
  );
  return answer(200, rule);
}

async function removeRule({ event, scope, deps }: Request): Promise<APIGatewayProxyStructuredResultV2> {
  const id = pathId(event);
  const current = await readRule(deps, scope, id);
  const expected = ifMatchOf(event, false, `DELETE /alert-rules/${id}`);
  if (expected) checkExpected(current, expected);
  await conflictsAsStale(current, (await deps.rules()).deleteRule(scope.organizationId, id, current.revision));
  return { statusCode: 204, headers: { 'Cache-Control': 'no-store' } };
}

/** The rule, if the organization has it and the grant reaches its location; else 404. */
async function readRule(deps: ManageAlertRulesDeps, scope: AccessScope, id: string): Promise<AlertRule> {
  const rule = RULE_ID.test(id) ? await (await deps.rules()).getRule(scope.organizationId, id) : undefined;
  if (!rule || !grants(scope, rule.spec.locationId))
    throw new NotFoundError(`There is no alert rule '${id.slice(0, 64)}'.`);
  return rule;
}

/**
 * The rule's location must be the organization's and within the grant; an occupancy rule's group must be the
 * location's.
 */
async function checkTarget(deps: ManageAlertRulesDeps, scope: AccessScope, spec: AlertRuleSpec): Promise<void> {
  const noLocation = () =>
    new ValidationError([{ path: '/locationId', message: `there is no location '${spec.locationId}'` }]);
  try {
    requireGranted(scope, spec.locationId);
  } catch {
    throw noLocation();
  }
  const view = await (await deps.locations()).getLocationWithGroups(scope.organizationId, spec.locationId);
  if (!view) throw noLocation();
  if (spec.kind === 'occupancy-above' && !view.sensorGroups.some((g) => g.id === spec.sensorGroupId)) {
    const ids = view.sensorGroups.map((g) => g.id).join(', ') || 'none';
    throw new ValidationError([
      {
        path: '/sensorGroupId',
        message: `location '${spec.locationId}' has no sensor group ${spec.sensorGroupId} (it has ${ids})`,
      },
    ]);
  }
}

function checkExpected(current: AlertRule, expected: IfMatch): void {
  if (expected === '*' || expected.includes(current.revision)) return;
  throw new PreconditionFailedError(
    `The alert rule is at revision ${current.revision} (ETag ${revisionEtag(current.revision)}), not the one If-Match names: read it again and apply the change to what is there.`,
  );
}

async function conflictsAsStale<T>(current: AlertRule, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (e) {
    if (e instanceof AlertWriteConflictError)
      throw new PreconditionFailedError(
        `The alert rule changed while this was written (it was at revision ${current.revision}): read it again.`,
      );
    throw e;
  }
}

const RULE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const pathId = (event: Request['event']): string => event.pathParameters?.ruleId ?? '';
const nowIso = (deps: ManageAlertRulesDeps) => new Date((deps.now ?? Date.now)()).toISOString();

function answer(
  statusCode: number,
  rule: AlertRule,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'private, no-cache',
      ETag: revisionEtag(rule.revision),
      ...headers,
    },
    body: JSON.stringify(toAlertRuleResource(rule)),
  };
}

export const handler = createManageAlertRulesHandler();
