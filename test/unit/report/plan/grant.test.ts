import { buildPlan } from '#shared/report/plan/build-plan';
import { narrowToGrant } from '#shared/report/plan/grant';

const report = (extra: Record<string, unknown> = {}) =>
  buildPlan({ source: 'movementEvents', aggregations: [{ type: 'terms', field: 'locationId' }], ...extra });
const ORG = 'a0000000-0000-4000-8000-00000000000a';

describe('a report under a location grant', () => {
  test('covers the granted locations when it names none', () => {
    expect(narrowToGrant(report(), { organizationId: ORG, locationIds: ['a', 'b'] }).locationIds).toEqual(['a', 'b']);
  });

  test('keeps the locations it names when all are granted', () => {
    expect(
      narrowToGrant(report({ locationIds: ['b'] }), { organizationId: ORG, locationIds: ['a', 'b'] }).locationIds,
    ).toEqual(['b']);
    expect(narrowToGrant(report(), { organizationId: ORG, locationIds: [] }).locationIds).toEqual(['']);
  });

  test('is refused with a 403 pointing at each location outside the grant', () => {
    // Act
    const refuse = () =>
      narrowToGrant(report({ locationIds: ['a', 'c', 'd'] }), { organizationId: ORG, locationIds: ['a', 'b'] });
    // Assess
    expect(refuse).toThrow(
      expect.objectContaining({
        status: 403,
        extensions: {
          errors: [
            { path: '/locationIds/1', message: "'c' is not among the locations this token may see" },
            { path: '/locationIds/2', message: "'d' is not among the locations this token may see" },
          ],
        },
      }),
    );
  });

  test('is the plan as it is without a grant', () => {
    const plan = report({ locationIds: ['z'] });
    expect(narrowToGrant(plan, { organizationId: ORG })).toBe(plan);
  });
});
