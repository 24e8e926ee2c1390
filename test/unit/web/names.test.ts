import { nameOf } from '../../../web/src/model/names';

describe('what people call a location', () => {
  test('its name, else its id', () => {
    expect(nameOf({ id: 'berlin-mall', name: 'Berlin Mall' })).toBe('Berlin Mall');
    expect(nameOf({ id: 'berlin-mall', name: '' })).toBe('berlin-mall');
    expect(nameOf({ id: 'berlin-mall' })).toBe('berlin-mall');
  });
});
