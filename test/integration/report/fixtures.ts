import { DEFAULT_EVENT_ORGANIZATION } from '../../../bin/dev/lambda-events';
import type { TestDocument } from '../support/opensearch';

/**
 * Small fixtures for the report tests. Every expected value in query-report.test.ts is computed by
 * hand from these lines. Organization org-a owns everything but e6 and its parking documents.
 */

/** Organizations org-a and org-b: UUIDs, the form the handlers require of the token's claim. */
export const ORG_A = DEFAULT_EVENT_ORGANIZATION;
export const ORG_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const cp = (id: string, end: 'A' | 'B') => ({ id, end, start: end === 'A' ? 'B' : 'A' });

export const movementEvents: TestDocument[] = [
  {
    organizationId: ORG_A,
    locationId: 'L1',
    trackingCameraId: 'c1',
    label: 'car',
    timestamp: '2024-03-01T08:00:00Z',
    crossedPaths: [cp('north', 'A')],
    polygons: [{ id: 'z1', value: 10 }],
  },
  {
    organizationId: ORG_A,
    locationId: 'L1',
    trackingCameraId: 'c1',
    label: 'person',
    timestamp: '2024-03-01T09:30:00Z',
    crossedPaths: [cp('north', 'B'), cp('south', 'A')],
    polygons: [
      { id: 'z1', value: 4 },
      { id: 'z2', value: 6 },
    ],
  },
  {
    organizationId: ORG_A,
    locationId: 'L2',
    trackingCameraId: 'c2',
    label: 'car',
    timestamp: '2024-03-01T23:30:00Z',
    crossedPaths: [cp('south', 'A')],
    polygons: [],
  },
  {
    organizationId: ORG_A,
    locationId: 'L1',
    trackingCameraId: 'c2',
    label: 'truck',
    timestamp: '2024-03-02T10:00:00Z',
    crossedPaths: [cp('north', 'A')],
    polygons: [{ id: 'z2', value: 2 }],
  },
  {
    organizationId: ORG_A,
    locationId: 'L2',
    trackingCameraId: 'c1',
    label: 'car',
    timestamp: '2024-03-03T12:00:00Z',
    crossedPaths: [],
    polygons: [{ id: 'z1', value: 1 }],
  },
  // e6: another organization's car; must never show up in org-a's answers.
  {
    organizationId: ORG_B,
    locationId: 'L9',
    trackingCameraId: 'c9',
    label: 'car',
    timestamp: '2024-03-01T10:00:00Z',
    crossedPaths: [cp('north', 'A')],
    polygons: [{ id: 'z1', value: 100 }],
  },
];

export const parkingEvents: TestDocument[] = [
  {
    organizationId: ORG_A,
    locationId: 'L1',
    parkingLotId: 'P1',
    cameraId: 'k1',
    duration: 30,
    spotId: 's1',
    startingTimestamp: '2024-03-01T07:30:00Z',
    timestamp: '2024-03-01T08:00:00Z',
  },
  {
    organizationId: ORG_A,
    locationId: 'L1',
    parkingLotId: 'P1',
    cameraId: 'k1',
    duration: 90,
    spotId: 's2',
    startingTimestamp: '2024-03-01T08:00:00Z',
    timestamp: '2024-03-01T09:30:00Z',
  },
  {
    organizationId: ORG_A,
    locationId: 'L2',
    parkingLotId: 'P2',
    cameraId: 'k2',
    duration: 600,
    spotId: 's1',
    startingTimestamp: '2024-03-01T10:00:00Z',
    timestamp: '2024-03-01T20:00:00Z',
  },
  {
    organizationId: ORG_B,
    locationId: 'L9',
    parkingLotId: 'P1',
    cameraId: 'k9',
    duration: 5,
    spotId: 's1',
    startingTimestamp: '2024-03-01T10:00:00Z',
    timestamp: '2024-03-01T10:05:00Z',
  },
];

export const parkingLotStats: TestDocument[] = [
  {
    organizationId: ORG_A,
    locationId: 'L1',
    parkingLotId: 'P1',
    occupied: 3,
    free: 7,
    total: 10,
    timestamp: '2024-03-01T08:00:00Z',
  },
  {
    organizationId: ORG_A,
    locationId: 'L1',
    parkingLotId: 'P1',
    occupied: 5,
    free: 5,
    total: 10,
    timestamp: '2024-03-01T09:00:00Z',
  },
  {
    organizationId: ORG_A,
    locationId: 'L2',
    parkingLotId: 'P2',
    occupied: 1,
    free: 19,
    total: 20,
    timestamp: '2024-03-01T08:15:00Z',
  },
];
