/**
 * Deterministic synthetic movement events for benchmarks: a fixed seed, so every run measures the
 * same documents. Labels follow a rough daily pattern; each event crosses 0 to 2 lines.
 */
export interface SyntheticOptions {
  readonly count: number;
  readonly organizationId: string;
  /** First day (UTC midnight, epoch ms) and number of days the events are spread over. */
  readonly start: number;
  readonly days: number;
  readonly seed?: number;
}

const LABELS = ['car', 'person', 'truck', 'bicycle'] as const;
const LINES = ['north', 'south', 'east', 'gate'] as const;

/** mulberry32: a tiny, well-known 32-bit PRNG; good enough to spread benchmark data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function* syntheticMovementEvents(o: SyntheticOptions): Generator<Record<string, unknown>> {
  const random = prng(o.seed ?? 42);
  const span = o.days * 86_400_000;
  for (let i = 0; i < o.count; i++) {
    const timestamp = o.start + Math.floor(random() * span);
    const label = LABELS[Math.min(3, Math.floor(random() * random() * 4 * 1.6))] as string;
    const crossings = Math.floor(random() * 3);
    const crossedPaths = Array.from({ length: crossings }, () => {
      const end = random() < 0.5 ? 'A' : 'B';
      return { id: LINES[Math.floor(random() * LINES.length)], end, start: end === 'A' ? 'B' : 'A' };
    });
    const polygons =
      random() < 0.3 ? [{ id: `zone-${Math.floor(random() * 5)}`, value: Math.round(random() * 600) }] : [];
    yield {
      organizationId: o.organizationId,
      locationId: `loc-${Math.floor(random() * 3)}`,
      trackingCameraId: `cam-${Math.floor(random() * 6)}`,
      label,
      timestamp: new Date(timestamp).toISOString(),
      crossedPaths,
      polygons,
    };
  }
}
