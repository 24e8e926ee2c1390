import { CATALOG, COLLECTIONS } from '#shared/documents/fields';
import { BREAKDOWNS, statsFields } from '../../../web/src/model/catalog';

describe('what the explorer offers to pick', () => {
  test('breaks down only by keyword fields of the collection, inside the nested stage their items need', () => {
    for (const collection of COLLECTIONS) {
      for (const breakdown of BREAKDOWNS[collection]) {
        let inside: string | undefined;
        for (const stage of breakdown.stages) {
          if (stage.type === 'nested') inside = stage.path;
          if (stage.type !== 'terms') continue;
          const field = CATALOG[collection].get(stage.field);
          expect({
            collection,
            field: stage.field,
            kind: field?.kind,
            nestedPath: field?.nestedPath,
            deprecated: field?.deprecated,
          }).toEqual({
            collection,
            field: stage.field,
            kind: 'keyword',
            nestedPath: inside,
            deprecated: undefined,
          });
        }
      }
    }
  });

  test('offers stats of the number fields of each collection', () => {
    expect(statsFields('movementEvents')).toEqual([{ name: 'polygons.value', nestedPath: 'polygons' }]);
    expect(statsFields('parkingLotStats')).toEqual([{ name: 'occupied' }, { name: 'free' }, { name: 'total' }]);
    expect(statsFields('parkingEvents')).toEqual([{ name: 'duration' }]);
  });
});
