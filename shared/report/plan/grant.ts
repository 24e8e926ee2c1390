import { LocationsNotGrantedError } from '../../errors';
import type { Scope } from '../../stores/store';
import type { ReportPlan } from './plan';

/** A location id no document can have (LOCATION_ID needs a character): what an empty grant narrows to. */
export const NO_LOCATION = '';

/**
 * The plan a scope may run: with a location grant, a report without `locationIds` covers the granted
 * locations (its `locationIds` become the grant), and one that names a location outside the grant is
 * refused (403, `errors` pointing at each), never narrowed silently. The engines scope every
 * report by its `locationIds` as by the organization, split slices and rollups included, so this is
 * where a grant reaches the documents. Without a grant, the plan as it is.
 */
export function narrowToGrant(plan: ReportPlan, scope: Scope): ReportPlan {
  const granted = scope.locationIds;
  if (granted === undefined) return plan;
  // A grant of no location: an id no document has (a location id is never empty), so the answer is that of no
  // documents.
  if (plan.locationIds === undefined)
    return { ...plan, locationIds: granted.length > 0 ? [...granted] : [NO_LOCATION] };
  const outside = plan.locationIds.flatMap((id, i) =>
    granted.includes(id)
      ? []
      : [{ path: `/locationIds/${i}`, message: `'${id.slice(0, 128)}' is not among the locations this token may see` }],
  );
  if (outside.length > 0) throw new LocationsNotGrantedError(outside);
  return plan;
}
