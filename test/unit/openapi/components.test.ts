import * as z from 'zod/mini';
import { generatedComponents } from '#shared/openapi/components';
import { apiSchemas, described, named } from '#shared/openapi/registry';

/**
 * The component generator knows no particular schema: a new route's body, registered as the report
 * request's schemas are, gets the same treatment. This file's module registry holds only the
 * schemas below (jest loads modules per test file, and nothing here imports the report schemas).
 */
describe('the component schemas generated from registered zod schemas', () => {
  const Kind = named(z.enum(['a', 'b']), 'Kind', 'A kind.');
  const Dot = named(
    z.strictObject({ type: described(z.literal('dot'), 'The shape.'), at: described(z.number(), 'Where.') }),
    'Dot',
    'A dot.',
  );
  const Line = named(
    z.strictObject({
      type: described(z.literal('line'), 'The shape.'),
      kind: described(z.string(), 'Any text to zod, a Kind in the document.', Kind),
    }),
    'Line',
    'A line.',
  );
  const Shape = named(z.discriminatedUnion('type', [Dot, Line]), 'Shape', 'A shape, by type.');
  named(z.strictObject({ shapes: described(z.array(Shape), 'The shapes.') }), 'Drawing', 'A drawing.');

  test('makes every named schema a component, their uses $refs, with a discriminator mapping and the documented forms', () => {
    // Act
    const components = generatedComponents();
    // Assess
    expect(Object.keys(components)).toEqual(['Kind', 'Dot', 'Line', 'Shape', 'Drawing']);
    expect(components.Shape).toEqual({
      description: 'A shape, by type.',
      oneOf: [{ $ref: '#/components/schemas/Dot' }, { $ref: '#/components/schemas/Line' }],
      discriminator: {
        propertyName: 'type',
        mapping: { dot: '#/components/schemas/Dot', line: '#/components/schemas/Line' },
      },
    });
    expect(components.Line).toMatchObject({
      properties: {
        kind: { $ref: '#/components/schemas/Kind', description: 'Any text to zod, a Kind in the document.' },
      },
    });
    expect(components.Drawing).toMatchObject({
      properties: {
        shapes: { type: 'array', items: { $ref: '#/components/schemas/Shape' }, description: 'The shapes.' },
      },
    });
  });

  test('validates a described copy as the original, with the same issues', () => {
    const kind = (Line.shape as { kind: z.ZodMiniType }).kind;
    expect(kind.safeParse(5).error?.issues).toEqual(z.string().safeParse(5).error?.issues);
    expect(apiSchemas.get(kind)).toEqual({ description: 'Any text to zod, a Kind in the document.' });
  });

  test('refuses a discriminated union whose options are not components', () => {
    const registry = z.registry<{ id?: string; description?: string }>();
    const loose = z.discriminatedUnion('type', [
      z.strictObject({ type: z.literal('x') }),
      z.strictObject({ type: z.literal('y') }),
    ]);
    registry.add(loose, { id: 'Loose' });
    expect(() => generatedComponents(registry)).toThrow(
      'Each option of a union discriminated by "type" must be a named component',
    );
  });
});
