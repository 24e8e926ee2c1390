import type { StoredLocation } from './admin';
import { type Location, type SensorGroup, toLocationResponse } from './model';

/**
 * A location as `GET /locations/{locationId}` answers it (and POST and PUT after a write): the
 * fields of `GET /locations`, then its sensor groups in id order, each with its capacity (when set)
 * and the capacity history the service keeps. The same shape, less what the service sets, is what
 * POST and PUT take, so an answer can be edited and sent back.
 */
export interface LocationResource extends Location {
  readonly sensorGroups: readonly SensorGroup[];
}

export function toLocationResource(stored: Pick<StoredLocation, 'location' | 'sensorGroups'>): LocationResource {
  return {
    ...toLocationResponse(stored.location),
    sensorGroups: stored.sensorGroups.map((g) => ({
      id: g.id,
      name: g.name,
      ...(g.capacity !== undefined ? { capacity: g.capacity } : {}),
      ...(g.capacityHistory && g.capacityHistory.length > 0 ? { capacityHistory: g.capacityHistory } : {}),
      lines: g.lines.map((l) => ({
        trackingCameraId: l.trackingCameraId,
        lineId: l.lineId,
        inDirection: l.inDirection,
      })),
      openingHours: g.openingHours,
    })),
  };
}
