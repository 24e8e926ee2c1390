import { MAX_RULES_PER_ORGANIZATION } from '../alerts/rules';
import { adminWriteErrors, ifMatch, json, noStore, notAdmin, type Json } from './admin-operations';
import { cacheControl, common, header, problemResponse, ref, type ProblemExample } from './responses';

/** Alert rules (`/alert-rules`, docs/alerts.md): their operations and schemas. */

const RULE_ID = '3f0c2a9e-7b1d-4c58-9e6a-2d4b8f1a0c37';
const AT = '2024-03-01T09:30:00.000Z';
const input = { locationId: 'berlin-mall', sensorGroupId: 1, kind: 'occupancy-above', percent: 80 };
const rule = {
  id: RULE_ID,
  ...input,
  clearPercent: 70,
  createdAt: AT,
  updatedAt: AT,
  createdBy: 'user-1',
  updatedBy: 'user-1',
};
const ruleHeaders = {
  ETag: header('AlertRuleETag'),
  'Cache-Control': cacheControl('private, no-cache', 'Revalidate with If-None-Match.'),
  Vary: header('Vary'),
  'X-Request-Id': header('X-Request-Id'),
};
const ruleIdParameter: Json = {
  name: 'ruleId',
  in: 'path',
  required: true,
  description: 'An alert rule of the caller’s organization (the id `POST /alert-rules` answered).',
  schema: { type: 'string' },
  example: RULE_ID,
};
const unknownRule = (problem: ProblemExample) =>
  problemResponse(
    "Unknown rule, another organization's, or one of a location outside the token's grant (the same answer).",
    { unknownRule: problem('not-found', `There is no alert rule '${RULE_ID}'.`) },
  );
const invalidRule = (problem: ProblemExample) =>
  problemResponse(
    'The body breaks the rule schema (every error with its JSON Pointer in `errors`), names a location or sensor group that is not there, or is not JSON.',
    {
      noGroup: problem('validation', '/sensorGroupId: is required for kind occupancy-above', {
        errors: [{ path: '/sensorGroupId', message: 'is required for kind occupancy-above' }],
      }),
    },
  );
const stale = (problem: ProblemExample) =>
  problemResponse('If-Match names another revision, or the rule changed while this was written: nothing was written.', {
    stale: problem(
      'precondition-failed',
      'The alert rule is at revision 2 (ETag "2"), not the one If-Match names: read it again and apply the change to what is there.',
    ),
  });
const body = (examples: Record<string, { summary?: string; value: unknown }>) => ({
  required: true,
  content: json(ref('schemas', 'AlertRuleInput'), examples),
});
const inputExamples = {
  occupancy: { summary: 'The entrance hall at 80 % of its capacity (clears below 70 %)', value: input },
  count: {
    summary: 'At 350 people, clearing below 300',
    value: { locationId: 'berlin-mall', sensorGroupId: 1, kind: 'occupancy-above', count: 350, clearCount: 300 },
  },
  parking: { summary: 'Lot P1 full', value: { locationId: 'berlin-mall', kind: 'parking-full', parkingLotId: 'P1' } },
  silent: {
    summary: 'Camera cam-1 silent',
    value: { locationId: 'berlin-mall', kind: 'sensor-silent', cameraId: 'cam-1' },
  },
};
const tail = { ...common, '503': ref('responses', 'GatewayTimeout') };

export function createAlertRule(problem: ProblemExample): Json {
  return {
    operationId: 'createAlertRule',
    tags: ['alerts'],
    summary: 'Creates an alert rule (admin): occupancy-above, parking-full or sensor-silent.',
    description: `Evaluated at every occupancy refresh; it fires once when its condition starts and once when it ends (docs/alerts.md). Defaults: the clear level 10 points below \`percent\` (10 % below \`count\`, at least one person); \`parking-full\` at 100 %. The location must be within the token's grant (else a 400 on \`/locationId\`, as an unknown one). At most ${MAX_RULES_PER_ORGANIZATION} rules per organization.`,
    requestBody: body(inputExamples),
    responses: {
      '201': {
        description: 'Created: the rule with its defaults.',
        headers: {
          ...ruleHeaders,
          Location: {
            description: 'The new rule’s path.',
            schema: { type: 'string' },
            example: `/alert-rules/${RULE_ID}`,
          },
        },
        content: json(ref('schemas', 'AlertRule'), { occupancy: { value: rule } }),
      },
      '400': invalidRule(problem),
      '409': problemResponse('The organization has as many rules as it may.', {
        tooMany: problem(
          'conflict',
          `The organization has ${MAX_RULES_PER_ORGANIZATION} alert rules, the most it may have: delete one first.`,
          { reason: 'too-many-rules', maxRules: MAX_RULES_PER_ORGANIZATION },
        ),
      }),
      ...adminWriteErrors(problem, undefined, '4 KiB'),
    },
  };
}

export function listAlertRules(): Json {
  return {
    operationId: 'listAlertRules',
    tags: ['alerts'],
    summary: 'The organization’s alert rules within the token’s grant, oldest first.',
    description: 'Any user of the organization; a token limited to some locations sees the rules of those.',
    parameters: [ref('parameters', 'AcceptEncoding'), ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'The rules.',
        headers: {
          ETag: header('ETag'),
          'Cache-Control': cacheControl('private, no-cache', 'Revalidate with If-None-Match.'),
          Vary: header('Vary'),
          'Content-Encoding': header('Content-Encoding'),
          'X-Request-Id': header('X-Request-Id'),
        },
        content: json(ref('schemas', 'AlertRuleList'), { oneRule: { value: { alertRules: [rule] } } }),
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '406': ref('responses', 'NotAcceptableJson'),
      ...tail,
    },
  };
}

export function getAlertRule(problem: ProblemExample): Json {
  return {
    operationId: 'getAlertRule',
    tags: ['alerts'],
    summary: 'One alert rule, with its strong ETag.',
    description: 'Any user of the organization within the grant of the rule’s location.',
    parameters: [ruleIdParameter, ref('parameters', 'IfNoneMatch')],
    responses: {
      '200': {
        description: 'The rule.',
        headers: ruleHeaders,
        content: json(ref('schemas', 'AlertRule'), { occupancy: { value: rule } }),
      },
      '304': ref('responses', 'NotModified'),
      '401': ref('responses', 'Unauthorized'),
      '404': unknownRule(problem),
      '406': ref('responses', 'NotAcceptableJson'),
      ...tail,
    },
  };
}

export function replaceAlertRule(problem: ProblemExample): Json {
  return {
    operationId: 'replaceAlertRule',
    tags: ['alerts'],
    summary: 'Replaces an alert rule (admin), If-Match required.',
    description:
      'The whole rule, as for POST. Its state stays: an active alert ends when the new clear level says so. If-Match must name the current revision (428 without it, 412 when stale).',
    parameters: [ruleIdParameter, ifMatch(true)],
    requestBody: body({ higher: { summary: 'At 90 % now', value: { ...input, percent: 90 } } }),
    responses: {
      '200': {
        description: 'The rule as it now is, with its new ETag.',
        headers: ruleHeaders,
        content: json(ref('schemas', 'AlertRule'), {
          higher: { value: { ...rule, percent: 90, clearPercent: 80, updatedAt: '2024-04-02T07:00:00.000Z' } },
        }),
      },
      '400': invalidRule(problem),
      '404': unknownRule(problem),
      '412': stale(problem),
      ...adminWriteErrors(problem, undefined, '4 KiB'),
      '428': problemResponse('No If-Match.', {
        noIfMatch: problem(
          'precondition-required',
          `PUT /alert-rules/${RULE_ID} needs If-Match with the ETag of the version it changes (or If-Match: * to change whatever is there), so that no one's change is overwritten unseen.`,
        ),
      }),
    },
  };
}

export function deleteAlertRule(problem: ProblemExample): Json {
  return {
    operationId: 'deleteAlertRule',
    tags: ['alerts'],
    summary: 'Deletes an alert rule and its state (admin): 204, then 404.',
    description: 'No `ended` event is sent for an active alert of a deleted rule. If-Match is honoured when sent.',
    parameters: [ruleIdParameter, ifMatch(false)],
    responses: {
      '204': { description: 'Deleted.', headers: noStore },
      '401': ref('responses', 'Unauthorized'),
      '403': notAdmin(problem, undefined),
      '404': unknownRule(problem),
      '412': stale(problem),
      ...tail,
    },
  };
}

const describedAs = (description: string, schema: Json): Json => ({ description, ...schema });

export const alertSchemas: Record<string, Json> = {
  AlertRule: {
    description:
      'An alert rule as the service keeps it: the fields it was given, the defaults filled in, and who wrote it when.',
    allOf: [
      ref('schemas', 'AlertRuleInput'),
      {
        type: 'object',
        required: ['id', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy'],
        properties: {
          id: describedAs('Its id (a UUID).', { type: 'string' }),
        },
      },
    ],
  },
  AlertRuleList: {
    type: 'object',
    description: 'The alert rules the caller may see.',
    required: ['alertRules'],
    properties: {
      alertRules: describedAs('Oldest first.', { type: 'array', items: ref('schemas', 'AlertRule') }),
    },
  },
};

export const alertHeaders: Record<string, Json> = {
  AlertRuleETag: {
    description: 'The strong ETag of the rule’s revision (`"1"` after its creation): send it in If-Match to change it.',
    schema: { type: 'string' },
    example: '"1"',
  },
};
