import * as z from 'zod/mini';
import { ValidationError, type FieldError } from '../errors';
import { described, named } from '../openapi/registry';
import { LocationIdSchema, MAX_SENSOR_GROUP_ID } from '../locations/schema';
import { parseOrThrow } from '../validation';

/**
 * Alert rules (docs/alerts.md): what `POST /alert-rules` and `PUT /alert-rules/{ruleId}` take, the
 * defaults they fill in, and the resource they answer. Kinds:
 *
 * - `occupancy-above`: a sensor group's live occupancy reaches `percent` of its capacity (or `count`
 *   people); it ends when it falls below the clear level (`clearPercent` / `clearCount`; by default
 *   10 points below `percent`, or 10 % below `count`, at least one person), so it does not flap.
 * - `parking-full`: a parking lot's occupied ÷ total spaces reaches `percent` (default 100: every space
 *   taken); it ends below `clearPercent` (default 10 points below).
 * - `sensor-silent`: a camera (`cameraId`) or a lot (`parkingLotId`) is `silent` by the health rule
 *   (docs/sensor-health.md); it ends when it sends again.
 */

const ALERT_KINDS = ['occupancy-above', 'parking-full', 'sensor-silent'] as const;

/** The most rules an organization may have (each is evaluated at every refresh). */
export const MAX_RULES_PER_ORGANIZATION = 1000;
/** Above this, a percent is a typo (1000 %: ten times the capacity). */
const MAX_PERCENT = 1000;
const MAX_COUNT = 1_000_000;

const percent = (what: string) =>
  described(
    z.optional(
      z
        .number()
        .check(
          z.minimum(0, `must be a number from 0 to ${MAX_PERCENT}`),
          z.maximum(MAX_PERCENT, `must be a number from 0 to ${MAX_PERCENT}`),
        ),
    ),
    what,
  );
const count = (what: string) =>
  described(
    z.optional(
      z
        .int()
        .check(
          z.minimum(0, `must be an integer from 0 to ${MAX_COUNT}`),
          z.maximum(MAX_COUNT, `must be an integer from 0 to ${MAX_COUNT}`),
        ),
    ),
    what,
  );
const sourceId = z
  .string()
  .check(z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters'));
const readOnly = (what: string) => described(z.optional(z.unknown()), `${what} Set by the service: ignored when sent.`);

export const AlertRuleInputSchema = named(
  z.strictObject({
    id: readOnly('The rule’s id.'),
    name: described(
      z.optional(z.string().check(z.maxLength(200, 'must be at most 200 characters'))),
      'What people call the rule (for the page and the log).',
    ),
    locationId: described(LocationIdSchema, 'The location the rule watches (within the caller’s grant).'),
    kind: described(z.enum(ALERT_KINDS), 'What the rule watches: `occupancy-above`, `parking-full`, `sensor-silent`.'),
    sensorGroupId: described(
      z.optional(
        z
          .int()
          .check(
            z.minimum(0, 'must be an integer ≥ 0'),
            z.maximum(MAX_SENSOR_GROUP_ID, `must be at most ${MAX_SENSOR_GROUP_ID}`),
          ),
      ),
      '`occupancy-above`: the sensor group (required).',
    ),
    percent: percent(
      '`occupancy-above`: start at this percent of the group’s capacity (or give `count`); `parking-full`: of the lot’s spaces (default 100).',
    ),
    count: count('`occupancy-above`: start at this many people (instead of `percent`).'),
    clearPercent: percent('End below this percent; default 10 points below `percent` (not below 0).'),
    clearCount: count('End below this many people; default 10 % below `count`, at least one person.'),
    parkingLotId: described(
      z.optional(sourceId),
      '`parking-full`: the lot (required); `sensor-silent`: the lot watched (or give `cameraId`).',
    ),
    cameraId: described(
      z.optional(sourceId),
      '`sensor-silent`: the camera watched (`trackingCameraId` of its events), or give `parkingLotId`.',
    ),
    createdAt: readOnly('When the rule was created.'),
    updatedAt: readOnly('When it was last changed.'),
    createdBy: readOnly('Who created it.'),
    updatedBy: readOnly('Who changed it last.'),
  }),
  'AlertRuleInput',
  'An alert rule as `POST /alert-rules` and `PUT /alert-rules/{ruleId}` take it (docs/alerts.md).',
);

/** A rule's watched thing and levels, defaults filled in. */
export type AlertCondition =
  | {
      readonly kind: 'occupancy-above';
      readonly sensorGroupId: number;
      readonly percent?: number;
      readonly clearPercent?: number;
      readonly count?: number;
      readonly clearCount?: number;
    }
  | {
      readonly kind: 'parking-full';
      readonly parkingLotId: string;
      readonly percent: number;
      readonly clearPercent: number;
    }
  | { readonly kind: 'sensor-silent'; readonly cameraId?: string; readonly parkingLotId?: string };

export type AlertRuleSpec = { readonly locationId: string; readonly name?: string } & AlertCondition;

export interface AlertRule {
  readonly id: string;
  readonly organizationId: string;
  readonly spec: AlertRuleSpec;
  readonly revision: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly createdBy: string | null;
  readonly updatedBy: string | null;
}

/** The body → the rule's spec, with defaults; 400 naming every field that is missing, extra or out of order. */
export function validateAlertRule(body: unknown): AlertRuleSpec {
  const input = parseOrThrow(AlertRuleInputSchema, body);
  const errors: FieldError[] = [];
  const need = (field: string, why: string) => errors.push({ path: `/${field}`, message: `is required ${why}` });
  const refuse = (field: string, why: string) => errors.push({ path: `/${field}`, message: `is not allowed ${why}` });
  const only = (allowed: readonly string[]) => {
    for (const field of ['sensorGroupId', 'percent', 'count', 'clearPercent', 'clearCount', 'parkingLotId', 'cameraId'])
      if (!allowed.includes(field) && input[field as keyof typeof input] !== undefined)
        refuse(field, `for kind ${input.kind} (it takes ${allowed.join(', ')})`);
  };
  const base = { locationId: input.locationId, ...(input.name !== undefined ? { name: input.name } : {}) };
  let spec: AlertRuleSpec | undefined;
  if (input.kind === 'occupancy-above') {
    only(['sensorGroupId', 'percent', 'count', 'clearPercent', 'clearCount']);
    if (input.sensorGroupId === undefined) need('sensorGroupId', 'for kind occupancy-above');
    if ((input.percent === undefined) === (input.count === undefined))
      errors.push({
        path: '/percent',
        message: 'exactly one of percent and count is required for kind occupancy-above',
      });
    if (input.percent !== undefined && input.clearCount !== undefined)
      refuse('clearCount', 'with percent (use clearPercent)');
    if (input.count !== undefined && input.clearPercent !== undefined)
      refuse('clearPercent', 'with count (use clearCount)');
    if (input.percent !== undefined) {
      const clearPercent = input.clearPercent ?? Math.max(0, input.percent - 10);
      if (input.clearPercent !== undefined && clearPercent > input.percent)
        errors.push({ path: '/clearPercent', message: `must be at most percent (${input.percent})` });
      spec = {
        ...base,
        kind: 'occupancy-above',
        sensorGroupId: input.sensorGroupId ?? 0,
        percent: input.percent,
        clearPercent,
      };
    } else if (input.count !== undefined) {
      const clearCount = input.clearCount ?? Math.max(0, input.count - Math.max(1, Math.ceil(input.count / 10)));
      if (input.clearCount !== undefined && clearCount > input.count)
        errors.push({ path: '/clearCount', message: `must be at most count (${input.count})` });
      spec = {
        ...base,
        kind: 'occupancy-above',
        sensorGroupId: input.sensorGroupId ?? 0,
        count: input.count,
        clearCount,
      };
    }
  } else if (input.kind === 'parking-full') {
    only(['parkingLotId', 'percent', 'clearPercent']);
    if (input.parkingLotId === undefined) need('parkingLotId', 'for kind parking-full');
    const pct = input.percent ?? 100;
    const clearPercent = input.clearPercent ?? Math.max(0, pct - 10);
    if (clearPercent > pct) errors.push({ path: '/clearPercent', message: `must be at most percent (${pct})` });
    spec = { ...base, kind: 'parking-full', parkingLotId: input.parkingLotId ?? '', percent: pct, clearPercent };
  } else {
    only(['cameraId', 'parkingLotId']);
    if ((input.cameraId === undefined) === (input.parkingLotId === undefined))
      errors.push({
        path: '/cameraId',
        message: 'exactly one of cameraId and parkingLotId is required for kind sensor-silent',
      });
    spec = {
      ...base,
      kind: 'sensor-silent',
      ...(input.cameraId !== undefined ? { cameraId: input.cameraId } : { parkingLotId: input.parkingLotId ?? '' }),
    };
  }
  if (errors.length > 0 || !spec) throw new ValidationError(errors);
  return spec;
}

/** The answer of the rule routes: the spec's fields, then the bookkeeping. */
export function toAlertRuleResource(rule: AlertRule): Record<string, unknown> {
  return {
    id: rule.id,
    ...rule.spec,
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
    createdBy: rule.createdBy,
    updatedBy: rule.updatedBy,
  };
}
