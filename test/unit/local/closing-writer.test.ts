import { closingWriter } from '../../../bin/local/closing-writer';
import type { DocumentToWrite } from '#shared/documents/identified';
import type { DocumentWriter, WriteOutcome } from '#shared/stores/store';

/** npm start's writer on the way out (issue 30, M5): a write begun ends and is answered, a later one is refused 503. */
test('close() waits for the write begun, then every write is refused 503 with Retry-After', async () => {
  // Prepare: a write that ends when the test says so.
  let finish!: () => void;
  const writes: string[] = [];
  const inner: DocumentWriter = {
    write: async (collection, documents) => {
      writes.push(collection);
      await new Promise<void>((resolve) => (finish = resolve));
      return documents.map((): WriteOutcome => ({ kind: 'written' }));
    },
  };
  const writer = closingWriter(inner);
  const doc = {
    document: { organizationId: 'o', locationId: 'l', timestamp: 0 },
    identity: { id: 'x', key: 1n, content: 2n },
  } as DocumentToWrite<'movementEvents'>;
  const begun = writer.write('movementEvents', [doc]);
  // Act
  let closed = false;
  const closing = writer.close().then(() => (closed = true));
  const later = writer
    .write('movementEvents', [doc])
    .catch((e: { status: number; headers: Record<string, string> }) => [e.status, e.headers['Retry-After']]);
  await new Promise((resolve) => setImmediate(resolve));
  const closedBeforeTheWriteEnded = closed;
  finish();
  // Assess
  expect(await begun).toEqual([{ kind: 'written' }]);
  await closing;
  expect({ closedBeforeTheWriteEnded, later: await later, writes }).toEqual({
    closedBeforeTheWriteEnded: false,
    later: [503, '5'],
    writes: ['movementEvents'],
  });
});
