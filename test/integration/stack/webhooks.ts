import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { SentMessage } from './aws-endpoints';

/** What the webhook tests need of the stack under test. */
export interface WebhookStack {
  readonly call: (
    method: string,
    path: string,
    options?: { body?: string; headers?: Record<string, string>; groups?: readonly string[] },
  ) => Promise<{ status: number; headers: Record<string, string>; body: string }>;
  readonly invoke: (functionId: string, event: unknown) => Promise<unknown>;
  /** What the functions sent to SQS (the stand-in). */
  readonly sent: () => readonly SentMessage[];
  readonly deliveryQueueUrl: () => string;
  readonly deliverFunctionId: () => string;
}

/**
 * Webhooks from the synthesized assets: an admin registers an endpoint and asks for a test delivery
 * (the webhook function's asset writes it to the table and sends a message to the delivery queue);
 * the queue's messages are handed to the delivery function's asset as its event source mapping
 * would; the first attempt meets a 500 and the function puts the message back delayed by the first
 * gap (5 s); 5 s later the second attempt reaches a real HTTP receiver with the same webhook-id and a
 * signature that verifies with the secret.
 */
export function webhookTests(stack: WebhookStack): void {
  describe('webhooks, from the assets', () => {
    it('a test delivery goes through the queue and the delivery function to a real receiver, signed, retried after a 500', async () => {
      // Prepare: a receiver that fails once, then takes deliveries.
      const received: { headers: Record<string, string>; body: string }[] = [];
      const server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          received.push({ headers: req.headers as Record<string, string>, body });
          res.writeHead(received.length === 1 ? 500 : 204).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const admin = { groups: ['admin'], headers: { 'content-type': 'application/json' } };
      const queueUrl = stack.deliveryQueueUrl();
      const toQueue = () => stack.sent().filter((m) => m.queueUrl === queueUrl);
      const sqsEvent = (messages: readonly SentMessage[]) => ({
        Records: messages.map((m) => ({
          messageId: m.messageId,
          receiptHandle: m.messageId,
          body: m.body,
          attributes: {},
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:deliveries',
          awsRegion: 'us-east-1',
        })),
      });
      try {
        // Act
        const created = await stack.call('POST', '/webhook-endpoints', {
          ...admin,
          body: JSON.stringify({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
            events: ['occupancy.above', 'sensor.silent'],
          }),
        });
        const { id, secret } = JSON.parse(created.body) as { id: string; secret: string };
        const test = await stack.call('POST', `/webhook-endpoints/${id}/test`, admin);
        const first = toQueue();
        const firstRun = await stack.invoke(stack.deliverFunctionId(), sqsEvent(first));
        const requeued = toQueue().slice(first.length);
        await new Promise((r) => setTimeout(r, requeued[0]!.delaySeconds * 1000 + 200));
        const secondRun = await stack.invoke(stack.deliverFunctionId(), sqsEvent(requeued));
        const log = await stack.call('GET', `/webhook-endpoints/${id}/deliveries`);

        // Assess
        expect([created.status, test.status, first.length, requeued.length]).toEqual([201, 202, 1, 1]);
        expect(requeued[0]!.delaySeconds).toBe(5);
        expect([firstRun, secondRun]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
        expect(received).toHaveLength(2);
        const deliveryId = (JSON.parse(test.body) as { id: string }).id;
        expect(received.map((r) => r.headers['webhook-id'])).toEqual([deliveryId, deliveryId]);
        expect(new Webhook(secret).verify(received[1]!.body, received[1]!.headers)).toMatchObject({
          type: 'webhook.test',
          data: { endpointId: id },
        });
        const [delivery] = (
          JSON.parse(log.body) as { deliveries: { status: string; attempts: { status: number }[] }[] }
        ).deliveries;
        expect([delivery!.status, delivery!.attempts.map((a) => a.status)]).toEqual(['delivered', [500, 204]]);
      } finally {
        await new Promise((r) => server.close(r));
      }
    }, 60_000);
  });
}
