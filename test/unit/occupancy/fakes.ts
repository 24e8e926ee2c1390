import type { EngineResult, ReportEngine, Scope } from '#shared/stores/store';
import type { ReportPlan } from '#shared/report/plan/plan';
import type { Location, SensorGroup } from '#shared/locations/model';
import type { LiveView, LocationStore, RefreshUnit } from '#shared/locations/store';
import type { OccupancyEntry } from '#shared/locations/occupancy-entry';

export const everyDay = (open: string, close: string) =>
  Object.fromEntries(
    ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => [d, [{ open, close }]]),
  );

export function location(id: string, organizationId = 'org-a', timezone = 'UTC'): Location {
  return {
    id,
    name: id,
    organizationId,
    type: 'store',
    timezone,
    createdBy: null,
    updatedBy: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };
}

export function group(id: number, camera: string, hours = everyDay('00:00', '24:00')): SensorGroup {
  return {
    id,
    name: `Group ${id}`,
    lines: [{ trackingCameraId: camera, lineId: 'door', inDirection: 'A' }],
    openingHours: hours,
  };
}

/** An in-memory LocationStore with the same conditional-write rules as the DynamoDB one. */
export class MemoryStore
  implements Pick<LocationStore, 'listForRefresh' | 'putOccupancy' | 'deleteOccupancy' | 'getLiveView'>
{
  readonly entries = new Map<string, OccupancyEntry>();
  constructor(readonly units: { location: Location; sensorGroups: SensorGroup[] }[]) {}

  private key = (org: string, loc: string, id: number) => JSON.stringify([org, loc, id]);

  async listForRefresh(): Promise<RefreshUnit[]> {
    return this.units.map((u) => ({
      ...u,
      cachedGroupIds: [...this.entries.values()]
        .filter((e) => e.organizationId === u.location.organizationId && e.locationId === u.location.id)
        .map((e) => e.sensorGroupId),
    }));
  }

  async putOccupancy(entry: OccupancyEntry): Promise<boolean> {
    const key = this.key(entry.organizationId, entry.locationId, entry.sensorGroupId);
    const old = this.entries.get(key);
    if (old && old.refreshedAt > entry.refreshedAt) return false;
    this.entries.set(key, entry);
    return true;
  }

  async deleteOccupancy(org: string, loc: string, id: number, notAfter: string): Promise<void> {
    const key = this.key(org, loc, id);
    if ((this.entries.get(key)?.refreshedAt ?? '') <= notAfter) this.entries.delete(key);
  }

  async getLiveView(org: string, loc: string): Promise<LiveView | undefined> {
    const unit = this.units.find((u) => u.location.organizationId === org && u.location.id === loc);
    if (!unit) return undefined;
    return {
      ...unit,
      occupancy: [...this.entries.values()].filter((e) => e.organizationId === org && e.locationId === loc),
    };
  }
}

/** Answers every crossings report with `ins` crossings towards A and `outs` towards B per camera line. */
export class CountingEngine implements ReportEngine {
  readonly maxBuckets = 65_535;
  readonly calls: { plan: ReportPlan; scope: Scope }[] = [];
  constructor(
    private readonly ins: number,
    private readonly outs = 0,
    private readonly failFor: readonly string[] = [],
  ) {}

  async run(plan: ReportPlan, scope: Scope): Promise<EngineResult> {
    this.calls.push({ plan, scope });
    if (plan.locationIds?.some((id) => this.failFor.includes(id))) throw new Error('engine unavailable');
    const cameras = cameraBuckets(plan);
    const ends = [
      { key: 'A', count: this.ins },
      { key: 'B', count: this.outs },
    ];
    return {
      truncated: false,
      root: {
        kind: 'filters',
        buckets: cameras.map((c) => ({
          key: c.name,
          count: 1,
          sub: {
            kind: 'single',
            count: 1,
            sub: { kind: 'terms', buckets: [{ key: 'door', count: 1, sub: { kind: 'terms', buckets: ends } }] },
          },
        })),
      },
    };
  }
}

/** The camera buckets of a crossings plan (its first stage is a filters aggregation). */
export function cameraBuckets(plan: ReportPlan): readonly { readonly name: string }[] {
  const first = plan.pipeline[0];
  if (first?.kind !== 'filters') throw new Error('not a crossings plan');
  return first.buckets;
}
