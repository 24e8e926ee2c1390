export type AlertEvent = {
  type: 'occupancy.above' | 'parking.full' | 'sensor.silent';
  id: string;
  organizationId: string;
  occurredAt: string;
  data: {
    state: 'started' | 'ended';
    ruleId: string;
    locationId: string;
    sensorGroupId?: number;
    parkingLotId?: string;
    cameraId?: string;
    value?: number;
    capacity?: number;
    percent?: number;
    threshold?: number;
  };
};

export interface AlertSink {
  publish(events: readonly AlertEvent[]): Promise<void>;
}
