import { randomUUID } from 'node:crypto';
import { type ItemTable, TransactionConflictError } from '../locations/item-table';
import { type Item, orgKey, REVISION, revisionOf } from '../locations/items';
import type { AlertEvent } from './events';
import type { AlertRule, AlertRuleSpec } from './rules';

/**
 * Alert rules and their states in the service's one table (../locations/items.ts has the layout of
 * the rest), through the same {@link ItemTable} face: DynamoDB (and DynamoDB Local) in AWS and tests,
 * the embedded file table locally, one copy of the logic.
 *
 * | item        | PK                   | SK               |
 * |-------------|----------------------|------------------|
 * | alert rule  | `ORG#<org>#ALERTS`   | `RULE#<ruleId>`  |
 * | alert state | `ORG#<org>#ALERTS`   | `STATE#<ruleId>` |
 *
 * Every write is conditional on the item's revision (absent for a new one), so that two writers
 * (two admins, two evaluators) never both win: the loser is told (a conflict), nothing is merged.
 */

const partition = (org: string) => `${orgKey(org)}#ALERTS`;
const ruleKey = (id: string) => `RULE#${id}`;
const stateKey = (id: string) => `STATE#${id}`;

/** Where a rule stands: its condition held since `startedAt` (active) or not; events not yet handed on. */
export interface AlertState {
  readonly ruleId: string;
  readonly active: boolean;
  /** When the current (active) or last condition started (ISO); the events' ids name it. */
  readonly startedAt?: string;
  /** Events of transitions committed but not yet published (a sink that failed): published at the next run. */
  readonly pending: readonly AlertEvent[];
  /** 0: never written. */
  readonly revision: number;
}

/** A conditional write lost: the item changed since it was read. */
export class AlertWriteConflictError extends Error {
  constructor() {
    super('the alert rule or state changed meanwhile');
    this.name = 'AlertWriteConflictError';
  }
}

export class AlertStore {
  constructor(private readonly table: ItemTable) {}

  async listRules(organizationId: string): Promise<AlertRule[]> {
    return (await this.table.query(partition(organizationId), 'RULE#')).map(toRule);
  }

  async getRule(organizationId: string, id: string): Promise<AlertRule | undefined> {
    const item = await this.table.get(partition(organizationId), ruleKey(id));
    return item && toRule(item);
  }

  /** A new rule, revision 1. */
  async createRule(organizationId: string, spec: AlertRuleSpec, actor: string | null, now: string): Promise<AlertRule> {
    const rule: AlertRule = {
      id: randomUUID(),
      organizationId,
      spec,
      revision: 1,
      createdAt: now,
      updatedAt: now,
      createdBy: actor,
      updatedBy: actor,
    };
    await this.write([{ put: ruleItem(rule), condition: { kind: 'absent' } }]);
    return rule;
  }

  /** The rule with a new spec, if it is still at `current.revision`. */
  async replaceRule(current: AlertRule, spec: AlertRuleSpec, actor: string | null, now: string): Promise<AlertRule> {
    const rule: AlertRule = { ...current, spec, revision: current.revision + 1, updatedAt: now, updatedBy: actor };
    await this.write([{ put: ruleItem(rule), condition: { kind: 'revision', revision: current.revision } }]);
    return rule;
  }

  /** Deletes the rule (if still at `revision`) and its state. */
  async deleteRule(organizationId: string, id: string, revision: number): Promise<void> {
    await this.write([
      { delete: { PK: partition(organizationId), SK: ruleKey(id) }, condition: { kind: 'revision', revision } },
      { delete: { PK: partition(organizationId), SK: stateKey(id) } },
    ]);
  }

  /** The states of the organization's rules, by rule id (a rule never evaluated has none). */
  async listStates(organizationId: string): Promise<Map<string, AlertState>> {
    const items = await this.table.query(partition(organizationId), 'STATE#');
    return new Map(items.map((item) => [item.ruleId as string, toState(item)]));
  }

  /**
   * Writes `next` if the stored state is still at `next.revision - 1` (absent for 1): false when
   * another writer came first (nothing written).
   */
  async putState(organizationId: string, next: AlertState): Promise<boolean> {
    const item: Item = {
      PK: partition(organizationId),
      SK: stateKey(next.ruleId),
      kind: 'alertState',
      ruleId: next.ruleId,
      active: next.active,
      ...(next.startedAt ? { startedAt: next.startedAt } : {}),
      pending: JSON.stringify(next.pending),
      [REVISION]: next.revision,
    };
    const previous = next.revision - 1;
    try {
      await this.table.transact([
        { put: item, condition: previous === 0 ? { kind: 'absent' } : { kind: 'revision', revision: previous } },
      ]);
      return true;
    } catch (e) {
      if (e instanceof TransactionConflictError) return false;
      throw e;
    }
  }

  private async write(actions: Parameters<ItemTable['transact']>[0]): Promise<void> {
    try {
      await this.table.transact(actions);
    } catch (e) {
      if (e instanceof TransactionConflictError) throw new AlertWriteConflictError();
      throw e;
    }
  }
}

function ruleItem(rule: AlertRule): Item {
  return {
    PK: partition(rule.organizationId),
    SK: ruleKey(rule.id),
    kind: 'alertRule',
    id: rule.id,
    organizationId: rule.organizationId,
    spec: JSON.stringify(rule.spec),
    [REVISION]: rule.revision,
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
    createdBy: rule.createdBy,
    updatedBy: rule.updatedBy,
  };
}

function toRule(item: Record<string, unknown>): AlertRule {
  return {
    id: item.id as string,
    organizationId: item.organizationId as string,
    spec: JSON.parse(item.spec as string) as AlertRuleSpec,
    revision: revisionOf(item),
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
    createdBy: (item.createdBy as string | null | undefined) ?? null,
    updatedBy: (item.updatedBy as string | null | undefined) ?? null,
  };
}

function toState(item: Record<string, unknown>): AlertState {
  return {
    ruleId: item.ruleId as string,
    active: item.active === true,
    ...(typeof item.startedAt === 'string' ? { startedAt: item.startedAt } : {}),
    pending: typeof item.pending === 'string' ? (JSON.parse(item.pending) as AlertEvent[]) : [],
    revision: revisionOf(item),
  };
}
