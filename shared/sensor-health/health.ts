import type { LocationWithGroups } from '../locations/model';
import type { ReportEngine } from '../stores/store';
import { currentOpenPeriod } from '../occupancy/opening-hours';
import { type Activity, activityOf, CAMERAS, PARKING_LOTS, parkingLotsOf } from './activity';
import { type HealthStatus, judge } from './rule';

/** The health of one camera of the location's sensor groups' lines. */
export interface CameraHealth {
  readonly trackingCameraId: string;
  /** The groups whose lines it counts, by id. */
  readonly sensorGroupIds: readonly number[];
  readonly status: HealthStatus;
  /** Its last event in the learning window, to the second (ISO 8601 UTC); null without one. */
  readonly lastEventAt: string | null;
  readonly usualGapSeconds: number | null;
}

/** The health of one parking lot that sent stats in the learning window. */
export interface ParkingLotHealth {
  readonly parkingLotId: string;
  readonly status: HealthStatus;
  readonly lastEventAt: string | null;
  readonly usualGapSeconds: number | null;
}

export interface SensorHealth {
  readonly cameras: readonly CameraHealth[];
  readonly parkingLots: readonly ParkingLotHealth[];
}

/**
 * The health of every camera of the location's groups and every parking lot at `now` (epoch ms),
 * from the organization's documents only (the engine scopes every report to it). A camera can be
 * silent only while one of its groups is open; a lot has no opening hours, its learned rates say
 * when it is quiet. Both ordered by id.
 */
export async function sensorHealth(engine: ReportEngine, view: LocationWithGroups, now: number): Promise<SensorHealth> {
  const { location, sensorGroups } = view;
  const q = {
    engine,
    scope: { organizationId: location.organizationId },
    locationId: location.id,
    zone: location.timezone,
    now,
  };
  const groupsOf = new Map<string, number[]>();
  const active = new Set<string>();
  for (const group of sensorGroups) {
    const open = currentOpenPeriod(group.openingHours, location.timezone, now) !== undefined;
    for (const line of group.lines) {
      const ids = groupsOf.get(line.trackingCameraId) ?? [];
      if (!ids.includes(group.id))
        groupsOf.set(
          line.trackingCameraId,
          [...ids, group.id].sort((a, b) => a - b),
        );
      if (open) active.add(line.trackingCameraId);
    }
  }
  const cameraIds = [...groupsOf.keys()].sort();
  const lotIds = await parkingLotsOf(q);
  const [cameras, lots] = await Promise.all([activityOf(q, CAMERAS, cameraIds), activityOf(q, PARKING_LOTS, lotIds)]);
  const judged = (a: Activity | undefined, isActive: boolean) => ({
    ...judge(a?.learned, a?.lastEventAt, now, location.timezone, isActive),
    lastEventAt: a?.lastEventAt === undefined ? null : new Date(a.lastEventAt).toISOString(),
  });
  return {
    cameras: cameraIds.map((id) => {
      const j = judged(cameras.get(id), active.has(id));
      return {
        trackingCameraId: id,
        sensorGroupIds: groupsOf.get(id) ?? [],
        status: j.status,
        lastEventAt: j.lastEventAt,
        usualGapSeconds: j.usualGapSeconds,
      };
    }),
    parkingLots: lotIds.map((id) => {
      const j = judged(lots.get(id), true);
      return { parkingLotId: id, status: j.status, lastEventAt: j.lastEventAt, usualGapSeconds: j.usualGapSeconds };
    }),
  };
}
